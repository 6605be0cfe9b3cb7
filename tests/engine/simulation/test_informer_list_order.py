"""Pods already running reach the scheduler in the informer's list order (namespace, then
name), whatever the order of the scenario's documents (issue: upstream's asynchronous edges).

Each node's pod order decides which of several equal-priority victims (same start time)
preemption evicts, so a scenario whose documents are shuffled must still preempt the same pod.
"""

from __future__ import annotations

import itertools
import random

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
        "status: {capacity: {cpu: '2', memory: 4Gi}}\n")
NODE2 = ("apiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {kubernetes.io/hostname: n2}}\n"
         "status: {capacity: {cpu: '1', memory: 4Gi}}\n")


def _running(ns: str, name: str, node: str = "n1") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}}}\n"
            f"spec:\n  nodeName: {node}\n  priority: 0\n"
            "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n")


PREEMPTOR = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: 100\n"
             "  nodeSelector: {kubernetes.io/hostname: n1}\n"
             "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n")


def _outcome(docs: list[str]) -> dict[str, tuple]:
    sim = Simulation(load_scenario_text("---\n".join(docs)))
    assert sim.run()
    out = sim.result(True)
    return {f"{p['namespace']}/{p['name']}": (p["status"], p["node"], p["deletedBy"], p["message"])
            for p in out["pods"]}


def test_equal_victims_preempted_in_list_order_not_document_order() -> None:
    # The node lists ns1/z before ns2/a (namespace first, though "a" < "z"); with that order the
    # reprieve keeps a and evicts z. In document order, one of the two permutations would
    # evict a instead.
    running = [_running("ns2", "a"), _running("ns1", "z")]
    for order in itertools.permutations(running):
        pods = _outcome([NODE, *order, PREEMPTOR])
        assert pods["ns1/z"][0] == "Deleted" and pods["ns1/z"][2] == "Preempted"
        assert pods["ns2/a"][:2] == ("Bound", "n1")
        assert pods["default/p"][:2] == ("Bound", "n1")


def test_shuffling_documents_never_changes_the_result() -> None:
    running = [_running("default", "b"), _running("default", "a"), _running("kube", "a"),
               _running("default", "c", "n2")]
    base = _outcome([NODE, NODE2, *running, PREEMPTOR])
    rng = random.Random(13)
    for _ in range(6):
        fixed = [NODE, NODE2, *running]
        rng.shuffle(fixed)
        # Pending pods keep their relative order (the queue's order), everything else moves.
        assert _outcome([*fixed, PREEMPTOR]) == base
