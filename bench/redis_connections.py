"""Redis connections a web or worker process opens for its frequent small lookups.

Every Redis client of the app is made by playground/infra/redis_client.py, one per process and
URL, so N lookups reuse one connection pool. Before, some modules made a client per call (the
classroom's presenter step, the comparisons' cache): each lookup opened a TCP connection to
Redis. This starts a private redis-server, makes N calls of each lookup in this process and
reports the connections Redis accepted meanwhile (INFO stats: total_connections_received) and
the time per call.

    .venv/bin/python bench/redis_connections.py [--calls 500]

Run it from another checkout's root to measure that tree (it imports `playground` from the
current directory).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _redis_server(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    from playground.launcher import find_redis_server, free_port, redis_ping, wait_until

    port = free_port()
    process = subprocess.Popen([find_redis_server(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(data_dir)], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    wait_until(lambda: redis_ping(url), timeout=20, what="redis-server")
    return process, url


def _accepted(url: str) -> int:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("stats")["total_connections_received"])
    finally:
        client.close()


def _lookups() -> dict[str, Callable[[], Any]]:
    from playground.services import classroom, quotas

    return {
        "classroom.presenter_step (a follower's page asks where the presenter is)": lambda: classroom.presenter_step(1),
        "quotas.run_nodes (the worker prices a step)": lambda: quotas.run_nodes(1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args(argv)
    sys.path.insert(0, os.getcwd())
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REDIS_URL"] = ""
        process, url = _redis_server(Path(tmp))
        os.environ["REDIS_URL"] = url
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        try:
            import django

            django.setup()
            from django.conf import settings

            settings.REDIS_URL = url
            for name, call in _lookups().items():
                call()  # the first call makes the client: not counted
                before = _accepted(url)
                started = time.perf_counter()
                for _ in range(args.calls):
                    call()
                seconds = time.perf_counter() - started
                opened = _accepted(url) - before - 1  # this measurement's own INFO connection
                print(f"{name}: {args.calls} calls, {opened} connections opened, "
                      f"{seconds / args.calls * 1e6:.0f} us per call")
        finally:
            process.terminate()
            process.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
