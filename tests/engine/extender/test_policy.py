"""The extender allow-list: what an operator did not allow is never reached (issue: SSRF and
local file read through a scenario's extender urlPrefix)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from scheduler_core.config.types import Extender
from scheduler_core.extender import ExtenderError, ExtenderTranscript, HTTPExtender
from scheduler_core.extender.policy import ExtenderPolicy, ExtenderURLRefused, parse_prefix
from scheduler_core.extender.sample import serve


@pytest.fixture
def sample() -> Iterator[str]:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _Recorder(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_POST(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        if self.path.endswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "/target")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"nodenames": [], "failedNodes": {}, "error": ""}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[str]]]:
    _Recorder.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.hits
    server.shutdown()
    server.server_close()


def call(url_prefix: str, policy: ExtenderPolicy, verb: str = "filter") -> Any:
    ext = HTTPExtender(Extender(url_prefix=url_prefix, filter_verb=verb), ExtenderTranscript(policy=policy))
    return ext._send("filter", verb, {"Pod": None, "Nodes": None, "NodeNames": []})


def test_file_urls_are_refused_before_anything_is_read(tmp_path: Any) -> None:
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0\n")
    everything = ExtenderPolicy.from_prefixes(["http://127.0.0.1:*/"])
    with pytest.raises(ExtenderError) as err:
        call(f"file://{tmp_path}", everything, verb="passwd")
    assert "only http and https are allowed" in str(err.value)
    assert "root:x" not in str(err.value)
    with pytest.raises(ValueError, match="only http and https"):
        parse_prefix("file:///etc/")


def test_a_port_outside_the_allow_list_is_never_connected_to() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    policy = ExtenderPolicy.from_prefixes(["http://127.0.0.1:8888/", "http://localhost:8888/"])
    try:
        with pytest.raises(ExtenderError, match="is not allowed on this server"):
            call(f"http://127.0.0.1:{port}", policy)
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody connected
        # Look-alikes of the allowed prefix are refused too.
        for url in ("http://127.0.0.1:88881", "http://127.0.0.1:8888@10.0.0.1", "https://127.0.0.1:8888",
                    "http://127.0.0.1.nip.io:8888"):
            with pytest.raises(ExtenderURLRefused):
                policy.check(url + "/filter")
    finally:
        listener.close()


def test_once_allowed_the_same_port_is_reached(recorder: tuple[str, list[str]]) -> None:
    url, hits = recorder
    with pytest.raises(ExtenderError, match="not allowed"):
        call(url, ExtenderPolicy.from_prefixes(["http://127.0.0.1:8888/"]))
    assert hits == []
    value, answer = call(url, ExtenderPolicy.from_prefixes([url + "/"]))
    assert answer.status == 200 and hits == ["/filter"]


def test_a_path_prefix_limits_the_verbs(recorder: tuple[str, list[str]]) -> None:
    url, hits = recorder
    policy = ExtenderPolicy.from_prefixes([url + "/scheduler/"])
    call(url + "/scheduler", policy)
    with pytest.raises(ExtenderError, match="not allowed"):
        call(url + "/schedulerx", policy)
    assert hits == ["/scheduler/filter"]


def test_redirects_are_not_followed(recorder: tuple[str, list[str]]) -> None:
    url, hits = recorder
    with pytest.raises(ExtenderError, match="code 302"):
        call(url, ExtenderPolicy.from_prefixes([url + "/"]), verb="redirect")
    assert hits == ["/redirect"]  # /target was never asked for


def test_a_name_is_resolved_once_and_its_address_checked(monkeypatch: pytest.MonkeyPatch,
                                                         recorder: tuple[str, list[str]]) -> None:
    """`localhost` may only be loopback: a resolver answering anything else (DNS rebinding, a
    poisoned hosts file) is refused, and the connection goes to the address that was checked."""
    url, hits = recorder
    port = int(url.rsplit(":", 1)[1])
    policy = ExtenderPolicy.from_prefixes([f"http://localhost:{port}/"])
    lookups: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: str, *args: Any, **kwargs: Any) -> Any:
        lookups.append(host)
        if host == "localhost":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with pytest.raises(ExtenderError, match="resolves to 169.254.169.254"):
        call(f"http://localhost:{port}", policy)
    assert hits == []
    def honest(host: str, *args: Any, **kwargs: Any) -> Any:
        lookups.append(host)
        return real("127.0.0.1", *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", honest)
    lookups.clear()
    call(f"http://localhost:{port}", policy)
    assert lookups == ["localhost"] and hits == ["/filter"]  # one lookup, then the checked address


def test_the_sample_extender_works_under_the_development_default(sample: str) -> None:
    port = sample.rsplit(":", 1)[1]
    policy = ExtenderPolicy.from_prefixes([f"http://127.0.0.1:{port}/", f"http://localhost:{port}/"])
    value, answer = call(sample, policy)
    assert answer.status == 200 and isinstance(value, dict) and not value.get("Error")


def test_the_time_budget_fails_calls_fast_once_spent() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)  # accepts, never answers
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    policy = ExtenderPolicy.from_prefixes([url + "/"], budget_seconds=0.5)
    policy.start_budget()
    try:
        with pytest.raises(ExtenderError, match="time budget"):
            call(url, policy)  # waits the 0.5 s budget, not the 5 s httpTimeout
        with pytest.raises(ExtenderError, match="time budget") as err:
            call(url, policy)
        assert err.value.call.latency_ms < 50  # spent: no wait at all
    finally:
        listener.close()
