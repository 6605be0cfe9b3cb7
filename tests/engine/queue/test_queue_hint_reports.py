"""Which plugin's queueing hint moved a pod (or kept it waiting), in the event stream: the
queue asks the hints of the plugins that rejected the pod, and each verdict is reported with
the move it caused (upstream's queue logs the resulting strategy as the move's "hint")."""

from __future__ import annotations

from queue_fakes import NODE_ADD, POD_DELETE, HintPlugin, fail, make_queue, mkpod

from scheduler_core.framework import events as fe
from scheduler_core.framework.types import QueueingHint
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: small}
status: {capacity: {cpu: '1', pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers: [{name: c, resources: {requests: {cpu: '2'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: picky}
spec:
  nodeSelector: {zone: b}
  containers: [{name: c}]
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 20, action: addNode, node: {metadata: {name: tiny, labels: {zone: a}}, status: {capacity: {cpu: '1', pods: '110'}}}}
- {at: 40, action: addNode, node: {metadata: {name: large, labels: {zone: b}}, status: {capacity: {cpu: '4', pods: '110'}}}}
"""


def _events(record: bool = True) -> list[dict]:
    sim = Simulation(load_scenario_text(SCENARIO, source="t"), seed=0, record_events=record)
    sim.run(600.0)
    return sim.sink.events


def test_a_node_too_small_is_skipped_by_each_rejecting_plugins_hint() -> None:
    skipped = [e for e in _events() if e["type"] == "queue_hints_skipped"]
    assert [(e["time"], e["event"], e["count"]) for e in skipped] == [(20.0, "NodeAdd", 2)]
    assert skipped[0]["pods"] == [
        {"pod": "default/big", "hints": [{"event": "NodeAdd", "plugin": "NodeResourcesFit", "hint": "QueueSkip"}]},
        {"pod": "default/picky", "hints": [{"event": "NodeAdd", "plugin": "NodeAffinity", "hint": "QueueSkip"}]},
    ]


def test_the_node_that_fits_moves_each_pod_by_its_own_plugins_queue_verdict() -> None:
    moves = [e for e in _events() if e["type"] == "queue_move" and e.get("event") == "NodeAdd"]
    assert [(m["pod"], m["from"], m["to"], m["strategy"], m["hints"]) for m in moves] == [
        ("default/big", "unschedulable", "activeQ", "QueueAfterBackoff",
         [{"event": "NodeAdd", "plugin": "NodeResourcesFit", "hint": "Queue"}]),
        ("default/picky", "unschedulable", "activeQ", "QueueAfterBackoff",
         [{"event": "NodeAdd", "plugin": "NodeAffinity", "hint": "Queue"}]),
    ]
    # Moves no hint decided (a pod's arrival, a pop) carry no hint fields.
    plain = [e for e in _events() if e["type"] == "queue_move" and e["reason"] in ("Pop", "UnschedulablePodAdd")]
    assert plain and all("hints" not in e and "strategy" not in e for e in plain)


class _Sink:
    enabled = True


class _Moves:
    def __init__(self) -> None:
        self.moves: list[tuple] = []

    def __call__(self, key, frm, to, reason, label, hints=None) -> None:
        self.moves.append((key, frm, to, reason, hints))


def test_an_event_seen_in_flight_is_reported_with_the_failure_it_requeued() -> None:
    """A preemptor's victim is deleted while the preemptor is in flight: the failed attempt's
    requeue names that deletion and the rejecting plugin's Queue verdict on it; the Skip of a
    plugin that did not reject the pod is never asked."""
    fit, other = HintPlugin("NodeResourcesFit"), HintPlugin("NodeAffinity", QueueingHint.SKIP)
    moves = _Moves()
    q = make_queue(hints=[(POD_DELETE, fit), (POD_DELETE, other)], recorder=moves)
    q.hint_recorder = _Sink()
    q.add(mkpod("preemptor", 100))
    p = q.pop()
    q.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, mkpod("victim", node_name="n1"), None)
    fail(q, p, "NodeResourcesFit")
    assert moves.moves[-1] == ("default/preemptor", "none", "backoffQ", "ScheduleAttemptFailure", {
        "strategy": "QueueAfterBackoff",
        "asked": [{"event": "AssignedPodDelete", "plugin": "NodeResourcesFit", "hint": "Queue"}]})


def test_a_plugin_without_a_hint_function_is_reported_as_always_queue() -> None:
    moves = _Moves()
    q = make_queue(hints=[(NODE_ADD, HintPlugin("X")), (NODE_ADD, _NoHint())], recorder=moves)
    q.hint_recorder = _Sink()
    q.add(mkpod("a"))
    fail(q, q.pop(), "Y")
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert moves.moves[-1][4] == {"strategy": "QueueAfterBackoff",
                                  "asked": [{"event": "NodeAdd", "plugin": "Y", "hint": "Queue", "default": True}]}


class _NoHint:
    name = "Y"


def test_a_headless_run_collects_no_hints_and_places_pods_the_same() -> None:
    recorded = Simulation(load_scenario_text(SCENARIO, source="t"), seed=0, record_events=True)
    headless = Simulation(load_scenario_text(SCENARIO, source="t"), seed=0)
    assert recorded.run(600.0) and headless.run(600.0)
    assert recorded.result(True)["pods"] == headless.result(True)["pods"]
    assert headless.scheduler.queue.last_hints is None
