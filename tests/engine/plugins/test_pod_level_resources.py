"""PodLevelResources (beta, on by default since v1.34): a pod's spec.resources requests replace
its containers' sum for cpu, memory and hugepages in NodeResourcesFit (Filter and Score),
BalancedAllocation and the nodes' accounting; the apiserver's defaults and validation; and a run
with the gate off (v1.30, or PodLevelResources=false) refuses such pods with a located error."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.export import dump_scenario
from scheduler_core.framework.types import pod_requests
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODES = """apiVersion: v1
kind: Node
metadata: {name: small}
status: {capacity: {cpu: '2', memory: 4Gi, pods: '10'}}
---
apiVersion: v1
kind: Node
metadata: {name: big}
status: {capacity: {cpu: '8', memory: 16Gi, pods: '10'}}
"""


def pod(name: str, resources: str, containers: str = "[{name: a, image: x, resources: {requests: {cpu: 500m}}}]",
        extra: str = "") -> str:
    res = f"  resources: {resources}\n" if resources else ""
    return f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{res}  containers: {containers}\n{extra}"


def run(*docs: str, gates: str = "", version: str | None = None) -> dict[str, dict]:
    sim = Simulation(load_scenario_text("---\n".join(docs)), feature_gates=gates, kubernetes_version=version)
    sim.run()
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_pod_level_requests_replace_the_containers_sum() -> None:
    sc = load_scenario_text(pod("p", "{requests: {cpu: '3', memory: 1Gi}}",
                                "[{name: a, image: x, resources: {requests: {cpu: 500m, ephemeral-storage: 1Gi}}},"
                                " {name: b, image: x}]"))
    reqs = pod_requests(sc.pods[0])
    assert reqs == {"cpu": Fraction(3), "memory": Fraction(2**30), "ephemeral-storage": Fraction(2**30)}


def test_filter_uses_the_pod_level_request() -> None:
    # 3 cpu at pod level: only big fits, though the container asks for 500m.
    pods = run(NODES, pod("p", "{requests: {cpu: '3'}}"), pod("q", "{requests: {cpu: '9'}}"))
    assert (pods["p"]["status"], pods["p"]["node"]) == ("Bound", "big")
    assert pods["q"]["status"] == "Pending"
    assert pods["q"]["message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")


def test_nodes_account_for_the_pod_level_request() -> None:
    # p takes 7 of big's 8 cpu; q (1.5 cpu) then fits only on small.
    pods = run(NODES, pod("p", "{requests: {cpu: '7'}}"), pod("q", "{requests: {cpu: 1500m}}"))
    assert (pods["p"]["node"], pods["q"]["node"]) == ("big", "small")


def _raw_scores(*docs: str) -> dict:
    sim = Simulation(load_scenario_text("---\n".join(docs)), record_events=True)
    sim.run()
    return next(e["raw"] for e in sim.sink.events if "raw" in e and "normalized" in e)


def test_scores_use_the_pod_level_request() -> None:
    # Fit and BalancedAllocation score the pod-level pod exactly as a pod whose one container
    # asks for the same (and not as its 500m container alone).
    level = _raw_scores(NODES, pod("p", "{requests: {cpu: 1500m, memory: 3Gi}}"))
    same = _raw_scores(NODES, pod("p", "", "[{name: a, image: x, resources: {requests: {cpu: 1500m, memory: 3Gi}}}]"))
    alone = _raw_scores(NODES, pod("p", ""))
    for plugin in ("NodeResourcesFit", "NodeResourcesBalancedAllocation"):
        assert level[plugin] == same[plugin] != alone[plugin], plugin


@pytest.mark.parametrize(("resources", "containers", "field", "text"), [
    ("{requests: {ephemeral-storage: 1Gi}}", None, "spec.resources.requests.ephemeral-storage",
     'Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"'),
    ("{requests: {cpu: 100m}}", None, "spec.resources.requests[cpu]",
     'Invalid value: "100m": must be greater than or equal to aggregate container requests of 500m'),
    ("{requests: {cpu: '2'}, limits: {cpu: '1'}}", None, "spec.resources.requests[cpu]",
     'Invalid value: "2": must be less than or equal to cpu limit of 1'),
    ("{limits: {cpu: '1'}}", "[{name: a, image: x, resources: {requests: {cpu: 500m}, limits: {cpu: '2'}}}]",
     "spec.resources.containers[0][cpu].limits", 'Invalid value: "2": must be less than or equal to pod limits of 1'),
    ("{claims: [{name: c}]}", None, "spec.resources.claims", "Forbidden: claims may not be set for Resources at "
                                                             "pod-level"),
])
def test_invalid_pod_level_resources_are_refused(resources: str, containers: str | None, field: str,
                                                 text: str) -> None:
    doc = pod("p", resources) if containers is None else pod("p", resources, containers)
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(doc)
    assert field in str(e.value) and text in str(e.value), str(e.value)


def test_defaults_from_limits_and_container_requests_and_round_trip() -> None:
    sc = load_scenario_text(pod("p", "{limits: {cpu: '2', memory: 2Gi}}",
                                "[{name: a, image: x, resources: {requests: {cpu: 500m}}}]"))
    pr = sc.pods[0].pod_resources
    # cpu: the containers' aggregate request; memory: no container asks, so the pod limit.
    assert pr.requests == {"cpu": Fraction(1, 2), "memory": Fraction(2 * 2**30)}
    again = load_scenario_text(dump_scenario(sc))
    assert again.pods[0].pod_resources == pr and type(again.pods[0]) is type(sc.pods[0])


def test_without_the_gate_such_a_pod_is_refused_with_its_location() -> None:
    docs = (NODES, pod("p", "{requests: {cpu: '3'}}"))
    for kwargs in ({"gates": "PodLevelResources=false"}, {"version": "v1.30"}):
        with pytest.raises(ScenarioError) as e:
            run(*docs, **kwargs)
        assert "(Pod default/p): spec.resources: Forbidden: pod-level resources need the PodLevelResources" \
            in str(e.value)
    # Pods without spec.resources run as ever with the gate off.
    assert run(NODES, pod("q", ""), gates="PodLevelResources=false")["q"]["status"] == "Bound"
