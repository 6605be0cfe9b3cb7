"""GangScheduling with the Workload API on the engine: all-or-nothing placement through
PreEnqueue, Reserve and Permit; the 5-minute gang deadline; the run's end for a gang that can
never complete; and the conformance cases recorded from upstream with gates on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]
CHECK = ROOT.parent / "shared" / "conformance" / "check.py"
GATES_DIR = CHECK.parent / "gates"
GANG = "GenericWorkload=true,GangScheduling=true"


def node(name: str, cpu: str = "2") -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"
            f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi}}}}\n")


def member(name: str, workload: str = "train", group: str = "workers", cpu: str = "2", prio: str = "") -> str:
    pc = f"  priorityClassName: {prio}\n" if prio else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{pc}"
            f"  workloadRef: {{name: {workload}, podGroup: {group}}}\n"
            f"  containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{cpu}'}}}}}}]\n")


def workload(min_count: int = 4, policy: str | None = None) -> str:
    pol = policy or f"gang: {{minCount: {min_count}}}"
    return ("apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: train}\n"
            f"spec:\n  podGroups:\n  - name: workers\n    policy: {{{pol}}}\n")


def run(docs: list[str], gates: str = GANG, record: bool = False) -> Simulation:
    sim = Simulation(load_scenario_text("---\n".join(docs)), feature_gates=gates, record_events=record)
    assert sim.run(3600.0)
    return sim


def pods(sim: Simulation) -> dict[str, dict]:
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_gang_binds_together_when_all_fit() -> None:
    sim = run([node(f"n{i}") for i in range(1, 5)] + [workload()] + [member(f"w{i}") for i in range(1, 5)],
              record=True)
    got = pods(sim)
    assert {k: (v["status"], v["node"]) for k, v in got.items()} == {
        "w1": ("Bound", "n1"), "w2": ("Bound", "n2"), "w3": ("Bound", "n3"), "w4": ("Bound", "n4")}
    waits = [e for e in sim.sink.events if e["type"] == "permit_wait"]
    assert [e["pod"] for e in waits] == ["default/w1", "default/w2", "default/w3"]
    assert all(e["plugin"] == "GangScheduling" and e["timeout"] == 300.0 for e in waits)
    assert sim.clock.now() == 0.0


def test_gang_that_cannot_complete_times_out_is_rejected_and_the_run_ends() -> None:
    sim = run([node(f"n{i}") for i in range(1, 4)] + [workload()] + [member(f"w{i}") for i in range(1, 5)],
              record=True)
    got = pods(sim)
    assert all(p["status"] == "Pending" for p in got.values())
    events = sim.result(True)["events"]
    timeouts = [e for e in events if "rejected due to timeout" in e["message"]]
    # The first round's three waiting members time out together at the 5-minute deadline.
    assert [(e["time"], e["object"]) for e in timeouts] == [
        (300.0, "default/w1"), (300.0, "default/w2"), (300.0, "default/w3")]
    assert timeouts[0]["message"] == ("0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s "
                                      "at plugin GangScheduling.")
    # The gang re-formed with a new deadline; its second timeout would repeat the round: over.
    assert sim.clock.now() == 600.0
    assert sim.scheduler.waiting_pods, "the re-formed members still wait at Permit"
    assert [e for e in sim.sink.events if e["type"] == "gang_stalled"]
    # Reserved members hold their node: the others see Insufficient cpu.
    assert all("Insufficient cpu" in p["message"] for p in got.values())


def test_pre_enqueue_holds_without_failed_scheduling() -> None:
    sim = run([node("n1", "8"), workload(3), member("a", cpu="1"), member("b", cpu="1"),
               member("m", workload="ghost", cpu="1")])
    got = pods(sim)
    assert got["a"]["status"] == got["b"]["status"] == got["m"]["status"] == "Pending"
    assert all(p["message"] is None for p in got.values())
    assert sim.result(True)["events"] == []


def test_unknown_pod_group_is_held() -> None:
    sim = run([node("n1"), workload(1), member("x", group="other", cpu="1")])
    assert pods(sim)["x"]["status"] == "Pending" and pods(sim)["x"]["message"] is None


def test_basic_policy_schedules_pod_by_pod() -> None:
    sim = run([node("n1"), workload(policy="basic: {}"), member("x", cpu="1")])
    assert pods(sim)["x"]["status"] == "Bound"


def test_gates_off_ignore_workload_ref() -> None:
    sim = run([node("n1")] + [workload()] + [member("w1", cpu="1")], gates="")
    assert pods(sim)["w1"]["status"] == "Bound"


def test_preemption_can_complete_a_gang() -> None:
    pcs = ("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n"
           "apiVersion: v1\nkind: Pod\nmetadata: {name: low}\nspec:\n  nodeName: n2\n"
           "  containers: [{name: c, image: x, resources: {requests: {cpu: '2'}}}]\n")
    sim = run([node("n1"), node("n2"), pcs, workload(2), member("g1", prio="high"), member("g2", prio="high")])
    got = pods(sim)
    assert got["g1"]["status"] == got["g2"]["status"] == "Bound"
    assert got["low"]["status"] == "Deleted"


@pytest.mark.parametrize(("doc", "field"), [
    ("apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\n"
     "spec: {podGroups: [{name: g, policy: {gang: {minCount: 0}}}]}", "spec.podGroups[0].policy.gang.minCount"),
    ("apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\n"
     "spec: {podGroups: [{name: g, policy: {basic: {}, gang: {minCount: 1}}}]}", "spec.podGroups[0].policy"),
    ("apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroups: []}",
     "spec.podGroups"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  workloadRef: {name: w}\n"
     "  containers: [{name: c, image: x}]", "spec.workloadRef.podGroup"),
])
def test_bad_workload_documents_are_refused_with_their_field(doc: str, field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(doc)
    assert field in str(e.value)


@pytest.mark.skipif(not GATES_DIR.exists(), reason="../shared/conformance/gates is not beside the project")
def test_gates_conformance_cases() -> None:
    proc = subprocess.run(
        [sys.executable, str(CHECK), "--cases", str(GATES_DIR), "--cmd", f"{sys.executable} -m scheduler_core",
         "--timeout", "120"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_a_cluster_change_after_a_timeout_lets_the_gang_complete() -> None:
    late_node = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                 "- at: 450\n  action: addNode\n  node:\n    apiVersion: v1\n    kind: Node\n"
                 "    metadata: {name: n4}\n    status: {allocatable: {cpu: '2', memory: 8Gi}}\n")
    sim = run([node(f"n{i}") for i in range(1, 4)] + [workload()] + [member(f"w{i}") for i in range(1, 5)]
              + [late_node])
    got = pods(sim)
    assert all(p["status"] == "Bound" for p in got.values()), got
    assert sorted(p["node"] for p in got.values()) == ["n1", "n2", "n3", "n4"]
    assert sim.clock.now() == 450.0
    # One timeout round happened before the node arrived.
    assert sum("rejected due to timeout" in e["message"] for e in sim.result(True)["events"]) == 3
