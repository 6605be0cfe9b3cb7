"""The multi-process web server: several web server processes answer on one socket, a killed one is
started again, and an address already in use fails loudly instead of moving elsewhere."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playground.infra.web_processes import listen, web_argv

ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def status(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/no-such-page/")
    return conn.getresponse().status


def wait_for(check, timeout: float = 30.0):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError("timed out")


def test_processes_share_the_socket_and_are_restarted(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DEBUG="false")
    server = subprocess.Popen(web_argv("127.0.0.1", port, processes=2), cwd=ROOT, env=env)
    try:
        pids = wait_for(lambda: (kids := children(server.pid)) and len(kids) == 2 and kids)
        assert wait_for(lambda: status(port)) == 404  # Django answers (a page that does not exist)
        os.kill(pids[0], signal.SIGKILL)
        replaced = wait_for(lambda: (kids := children(server.pid)) and len(kids) == 2 and pids[0] not in kids and kids)
        assert pids[1] in replaced
        assert all(status(port) == 404 for _ in range(10))
    finally:
        server.terminate()
        server.wait(15)
    assert children(server.pid) == []


def test_an_address_in_use_fails_loudly() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            listen("127.0.0.1", taken.getsockname()[1])
        out = subprocess.run(
            [sys.executable, "-m", "playground.infra.web_processes", "--port", str(taken.getsockname()[1])],
            cwd=ROOT, capture_output=True, text=True, timeout=30,
        )
        assert out.returncode == 1 and "cannot listen" in out.stderr


@pytest.mark.live
def test_a_server_starts_without_deprecation_warnings_and_serves_websockets(live_env: dict[str, str]) -> None:
    """`./dev run` shows the servers' start-up output: no DeprecationWarning that no note explains,
    and a websocket through the same server still connects and receives its first message."""
    from websockets.sync.client import connect

    port = free_port()
    server = subprocess.Popen(web_argv("127.0.0.1", port, processes=1), cwd=ROOT, env=live_env,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: status(port))
        with connect(f"ws://127.0.0.1:{port}/ws/diagnostics/", open_timeout=10,
                     origin=f"http://127.0.0.1:{port}") as ws:
            assert ws.recv(timeout=10)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        _, err = server.communicate(timeout=15)
    assert "DeprecationWarning" not in err, err


@pytest.mark.live
def test_websocket_messages_are_compressed_without_context_and_read_back_whole(live_env: dict[str, str]) -> None:
    """The server answers a browser's permessage-deflate offer with server_no_context_takeover
    (playground.infra.websocket_deflate shares each message's compression between connections), and
    two clients at once read their messages back intact."""
    from websockets.sync.client import connect

    port = free_port()
    server = subprocess.Popen(web_argv("127.0.0.1", port, processes=1), cwd=ROOT, env=live_env,
                              start_new_session=True)
    try:
        wait_for(lambda: status(port))
        url, origin = f"ws://127.0.0.1:{port}/ws/diagnostics/", f"http://127.0.0.1:{port}"
        with connect(url, open_timeout=10, origin=origin) as first, connect(url, open_timeout=10, origin=origin) as second:
            for ws in (first, second):
                agreed = ws.response.headers.get("Sec-WebSocket-Extensions", "")
                assert "permessage-deflate" in agreed and "server_no_context_takeover" in agreed
            messages = [first.recv(timeout=10), second.recv(timeout=10)]
            assert all(isinstance(m, str) and m.lstrip().startswith("<") for m in messages)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(15)
