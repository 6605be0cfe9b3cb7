"""A private, throw-away PostgreSQL server for the test suite (`./dev test` runs the tests marked
`postgres` against it, so the production database engine is exercised, not assumed).

    python -m tests.postgres_server -- <command...>

initdb's a data directory under a fresh temporary directory, starts the server on a free
127.0.0.1 port with its socket in that directory, creates the `playground` database, runs the
command with DATABASE_URL pointing at it, then stops the server and deletes everything. Debian's
server binaries (/usr/lib/postgresql/<version>/bin) are used; PostgreSQL refuses to run as root,
so as root the server runs as the `postgres` system user (created by the Debian package).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

DATABASE = "playground"
USER = "playground"


def server_bin() -> Path:
    """The newest installed server's bin directory."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    if not candidates:
        raise SystemExit("PostgreSQL server binaries not found (apt-get install postgresql)")
    return Path(candidates[-1]).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


def run(command: list[str]) -> int:
    bindir = server_bin()
    root = Path(tempfile.mkdtemp(prefix="playground-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        for p in (root, sock):
            os.chown(p, pw.pw_uid, pw.pw_gid)
    port = free_port()
    quiet = {"stdout": subprocess.DEVNULL}
    try:
        subprocess.run(_as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", USER, "-A", "trust",
                                        "-E", "UTF8", "--no-sync"]), check=True, **quiet)
        subprocess.run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "server.log"), "-w",
                                        "-o", f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
                                              "-c synchronous_commit=off -c full_page_writes=off",
                                        "start"]), check=True, **quiet)
        try:
            subprocess.run([str(bindir.parent / "bin" / "createdb"), "-h", "127.0.0.1", "-p", str(port),
                            "-U", USER, DATABASE], check=True)
            env = dict(os.environ, DATABASE_URL=f"postgres://{USER}@127.0.0.1:{port}/{DATABASE}")
            print(f"postgres_server: PostgreSQL ({bindir.parent.name}) on 127.0.0.1:{port}", file=sys.stderr)
            return subprocess.run(command, env=env).returncode
        finally:
            subprocess.run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
                           **quiet)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        raise SystemExit(__doc__)
    sys.exit(run(args))
