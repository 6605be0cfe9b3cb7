"""The sample extender's preempt verb: it removes the candidate nodes whose victims are labelled
playground/extender-protected=true, which changes the victim the gallery's scenario loses; when
the (ignorable) extender is down, DefaultPreemption's own pick stands."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from scheduler_core.extender.sample import Policy, serve
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = (Path(__file__).resolve().parents[3] / "playground" / "gallery" / "extender-preempt.yaml").read_text()


@pytest.fixture
def sample() -> Iterator[str]:
    server = serve(port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _pod(name: str, uid: str, protected: bool = False) -> dict:
    labels = {"playground/extender-protected": "true"} if protected else {}
    return {"metadata": {"name": name, "uid": uid, "labels": labels}}


def test_the_policy_drops_nodes_with_a_protected_victim() -> None:
    out = Policy().preempt({"NodeNameToVictims": {
        "a": {"Pods": [_pod("x", "u1", protected=True), _pod("y", "u2")], "NumPDBViolations": 0},
        "b": {"Pods": [_pod("z", "u3")], "NumPDBViolations": 1},
    }})
    assert out == {"NodeNameToMetaVictims": {"b": {"Pods": [{"UID": "u3"}], "NumPDBViolations": 1}}}


def _deleted(text: str) -> dict[str, str | None]:
    sim = Simulation(load_scenario_text(text, source="t"), seed=0, record_events=True)
    assert sim.run(600.0)
    return {p["name"]: p["node"] if p["status"] == "Bound" else p["status"] for p in sim.result(True)["pods"]}


def test_the_extender_vetoes_the_cheaper_victim(sample: str) -> None:
    placed = _deleted(SCENARIO.replace("http://127.0.0.1:8888", sample))
    assert placed == {"batch-a": "node-a", "batch-b": "Deleted", "urgent": "node-b"}


def test_without_the_extender_default_preemption_takes_the_lower_priority_victim() -> None:
    with socket_closed() as url:
        placed = _deleted(SCENARIO.replace("http://127.0.0.1:8888", url))
    assert placed == {"batch-a": "Deleted", "batch-b": "node-b", "urgent": "node-a"}


class socket_closed:  # noqa: N801 (a context manager read as a phrase)
    """A loopback URL nothing listens on (a port just released)."""

    def __enter__(self) -> str:
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        return None
