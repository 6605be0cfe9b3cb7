"""Dynamic behaviour between scheduling cycles, checked against upstream v1.35's queue logic
(scheduling_queue.go, eventhandlers.go, RunFilterPluginsWithNominatedPods, the plugins' queueing
hints). Each scenario is one path where the order of requeues decides an outcome:

- A1: after a preemption the preemptor is nominated; a lower-priority pod tried before the
  preemptor's retry must count the nominated pod on that node (addGENominatedPods) and so cannot
  take the freed room.
- A2: the victim's own required anti-affinity was what blocked the preemptor. Its deletion is
  replayed to the preemptor as an in-flight event, but InterPodAffinity's hint only queues on a
  deleted pod matching the preemptor's own anti-affinity terms, so nothing requeues it: it stays
  Pending with its nominated node (a fact the recordings pinned down).
- A3: a NoExecute eviction at t=10 (AssignedPodDelete, NodeResourcesFit hint: a scheduled pod
  was deleted) requeues both waiting pods; their backoff is over, so both go to activeQ and the
  higher priority one wins regardless of document order.
"""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

A1 = "# a1: preemptor P (prio 100) evicts v on n1; lower-priority L (prio 10) must not take the room.\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\nstatus: {capacity: {cpu: '2', memory: 4Gi}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: v}\nspec:\n  nodeName: n1\n  priority: 0\n  containers: [{name: c, image: pause, resources: {requests: {cpu: '2'}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: 100\n  containers: [{name: c, image: pause, resources: {requests: {cpu: '2'}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: l}\nspec:\n  priority: 10\n  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n"

A2 = "# a2: the victim's own anti-affinity blocked the preemptor; after the victim is deleted nothing\n# requeues the preemptor (InterPodAffinity hint skips a deletion that doesn't match the pod's own\n# anti-affinity terms) -> Pending with nominatedNodeName (contract fact).\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\nstatus: {capacity: {cpu: '4', memory: 4Gi}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: v, labels: {app: v}}\nspec:\n  nodeName: n1\n  priority: 0\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: p}}\n        topologyKey: kubernetes.io/hostname\n  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: p}}\nspec:\n  priority: 100\n  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n"

A3 = '# a3: a NoExecute eviction at t=10 frees 2 cpu on n1. Two pending pods want it: lo (prio 1, first\n# in document order) and hi (prio 50). Both were rejected by NodeResourcesFit at t=0; the\n# AssignedPodDelete requeues both (backoff long over) into activeQ, hi is popped first and binds;\n# lo stays Pending with a fresh message. "tainted" was rejected only by TaintToleration on n2 and\n# by Fit on n1, so it is requeued too but stays pending (n2 still tainted for it).\napiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\nspec:\n  taints: [{key: drain, value: \'yes\', effect: NoExecute}]\nstatus: {capacity: {cpu: \'2\', memory: 4Gi}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: old}\nspec:\n  nodeName: n1\n  priority: 1000\n  tolerations: [{key: drain, operator: Exists, effect: NoExecute, tolerationSeconds: 10}]\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \'2\'}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: lo}\nspec:\n  priority: 1\n  tolerations: [{key: drain, operator: Exists, effect: NoExecute}]\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \'2\'}}}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: hi}\nspec:\n  priority: 50\n  tolerations: [{key: drain, operator: Exists, effect: NoExecute}]\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \'2\'}}}]\n'


def _run(text: str) -> tuple[dict, dict]:
    sim = Simulation(load_scenario_text(text))
    assert sim.run()
    out = sim.result(True)
    return {p["name"]: p for p in out["pods"]}, out


def test_lower_priority_pod_respects_preemptors_nomination() -> None:
    pods, _ = _run(A1)
    assert pods["v"]["status"] == "Deleted" and pods["v"]["deletedBy"] == "Preempted"
    assert pods["p"]["status"] == "Bound" and pods["p"]["node"] == "n1"
    assert pods["l"]["status"] == "Pending"
    assert pods["l"]["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
        "0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_preemptor_blocked_by_victims_anti_affinity_is_not_requeued() -> None:
    pods, out = _run(A2)
    assert pods["v"]["status"] == "Deleted"
    assert pods["p"]["status"] == "Pending"
    assert pods["p"]["nominatedNodeName"] == "n1"
    assert pods["p"]["message"] == "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules."
    assert out["settled"] is True


def test_eviction_requeues_waiting_pods_in_priority_order() -> None:
    pods, out = _run(A3)
    assert pods["old"]["status"] == "Deleted" and pods["old"]["deletedBy"] == "TaintManagerEviction"
    assert pods["old"]["deletedAt"] == 10.0
    assert pods["hi"]["status"] == "Bound" and pods["hi"]["node"] == "n1"
    assert pods["lo"]["status"] == "Pending"
    scheduled = [e for e in out["events"] if e["reason"] == "Scheduled"]
    assert [(e["time"], e["object"]) for e in scheduled] == [(10.0, "default/hi")]
    # lo was retried after the eviction too (a second FailedScheduling at t=10).
    lo_failures = [e["time"] for e in out["events"]
                   if e["reason"] == "FailedScheduling" and e["object"] == "default/lo"]
    assert lo_failures == [0.0, 10.0]
