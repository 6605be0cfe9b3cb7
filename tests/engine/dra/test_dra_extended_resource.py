"""DRAExtendedResource in whole runs: a pod asks for an extended resource (a DeviceClass's
`extendedResourceName`, or the implicit `deviceclass.resource.kubernetes.io/<class>`) and, on a
node whose allocatable lacks it, DynamicResources allocates devices through the scheduler's
special claim, created at PreBind and named in the pod's extendedResourceClaimStatus. A node that
advertises the resource is NodeResourcesFit's (a device plugin). With the gate off the field is
ignored, as an apiserver without the gate drops it: the pods wait for the resource on nodes."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.export import dump_scenario
from scheduler_core.api.resource_types import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.dra.test_dra_plugin import TEMPLATE, gpu_slice

GATE = "DRAExtendedResource=true"

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  extendedResourceName: example.com/gpu
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
"""


def node(name: str, gpus: int | None = None) -> str:
    """A node; `gpus`: the example.com/gpu a device plugin advertises in its allocatable."""
    extra = f", example.com/gpu: '{gpus}'" if gpus is not None else ""
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
            f"status: {{allocatable: {{cpu: '8', memory: 32Gi, pods: '110'{extra}}}}}\n")


def pod(name: str, count: int = 1, resource: str = "example.com/gpu", extra: str = "",
        init: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}{init}"
            "  containers:\n  - name: app\n    image: cuda\n"
            f"    resources: {{limits: {{{resource}: '{count}'}}, requests: {{cpu: 100m}}}}\n")


def run(*docs: str, gates: str | None = GATE) -> tuple[Simulation, dict[str, dict]]:
    sim = Simulation(load_scenario_text("\n---\n".join(docs)), record_events=True, feature_gates=gates)
    assert sim.run()
    return sim, {p["name"]: p for p in sim.result(True)["pods"]}


def extended_claims(sim: Simulation) -> dict[str, list[str]]:
    """claim name -> its allocated devices, for the claims the scheduler made for extended resources."""
    return {c.name: [r.device for r in c.allocation.results] if c.allocation else []
            for c in sim.scheduler.cluster.resource_claims.values()
            if c.annotations.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true"}


def test_explicit_name_gets_devices_through_the_special_claim() -> None:
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0", "g1", "g2"), pod("train", 2))
    assert pods["train"]["status"] == "Bound" and pods["train"]["node"] == "n1"
    cs = sim.scheduler.cluster
    p = cs.pods["default/train"]
    status = cs.extended_claim_statuses()["default/train"]
    claim = cs.resource_claims[f"default/{status.resource_claim_name}"]
    assert claim.name.startswith("train-extended-resources-") and len(claim.name) == len("train-extended-resources-") + 5
    assert [(o.kind, o.name, o.uid, o.controller) for o in claim.owner_references] == [("Pod", "train", p.uid, True)]
    assert [(r.name, r.exactly.device_class_name, r.exactly.count) for r in claim.spec.requests] == [
        ("container-0-request-1", "gpu", 2)]  # requests sorted: cpu, example.com/gpu
    assert [(r.request, r.device) for r in claim.allocation.results] == [
        ("container-0-request-1", "g0"), ("container-0-request-1", "g1")]
    assert [(r.resource, r.name, r.uid) for r in claim.reserved_for] == [("pods", "train", p.uid)]
    assert [(m.container_name, m.resource_name, m.request_name) for m in status.request_mappings] == [
        ("app", "example.com/gpu", "container-0-request-1")]
    actions = [(e["action"], e["by"]) for e in sim.sink.events if e["type"] == "resource_claim"]
    assert actions == [("created", "DynamicResources"), ("allocated", "DynamicResources")]


def test_implicit_class_name_works_without_extended_resource_name() -> None:
    implicit = CLASS.replace("  extendedResourceName: example.com/gpu\n", "")
    sim, pods = run(implicit, node("n1"), gpu_slice("n1", "g0"),
                    pod("a", resource="deviceclass.resource.kubernetes.io/gpu"), pod("b", resource="example.com/gpu"))
    assert pods["a"]["node"] == "n1"
    assert list(extended_claims(sim).values()) == [["g0"]]
    # Without the explicit name, example.com/gpu is an ordinary extended resource no node has.
    assert pods["b"]["status"] == "Pending"
    assert pods["b"]["message"].startswith("0/1 nodes are available: 1 Insufficient example.com/gpu.")


def test_node_advertising_the_resource_is_left_to_the_device_plugin() -> None:
    # n1 advertises 4 example.com/gpu (a device plugin) and also publishes a slice: no device is
    # allocated there; n2 only has the slice.
    sim, pods = run(CLASS, node("n1", gpus=4), gpu_slice("n1", "d0"), node("n2"), gpu_slice("n2", "g0"),
                    pod("plugin", extra="  nodeSelector: {kubernetes.io/hostname: n1}\n"),
                    pod("dra", extra="  nodeSelector: {kubernetes.io/hostname: n2}\n"))
    assert pods["plugin"]["node"] == "n1" and pods["dra"]["node"] == "n2"
    cs = sim.scheduler.cluster
    assert "default/plugin" not in cs.extended_claim_statuses()
    assert list(extended_claims(sim).values()) == [["g0"]]
    assert [r.device for c in cs.resource_claims.values() for r in c.allocation.results] == ["g0"]


def test_device_plugin_node_counts_its_allocatable_as_always() -> None:
    sim, pods = run(CLASS, node("n1", gpus=1), gpu_slice("n1", "d0", "d1"), pod("a"), pod("b"))
    assert pods["a"]["node"] == "n1"
    assert pods["b"]["status"] == "Pending"
    assert pods["b"]["message"].startswith("0/1 nodes are available: 1 Insufficient example.com/gpu.")
    assert extended_claims(sim) == {}


INSUFFICIENT = ("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
                "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def test_insufficient_devices_give_upstreams_failed_scheduling() -> None:
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0", "g1"), pod("a", 2), pod("b", 1))
    assert pods["a"]["node"] == "n1"
    assert pods["b"]["status"] == "Pending"
    assert pods["b"]["message"] == INSUFFICIENT
    failed = [e for e in sim.sink.events if e["type"] == "k8s_event" and e["reason"] == "FailedScheduling"]
    assert failed[-1]["message"] == INSUFFICIENT


def test_deleting_the_pod_frees_its_devices_for_a_waiting_pod() -> None:
    docs = [CLASS, node("n1"), gpu_slice("n1", "g0"), pod("a"), pod("b")]
    sim = Simulation(load_scenario_text("\n---\n".join(docs)), record_events=True, feature_gates=GATE)
    assert sim.run()
    first = sim.scheduler.cluster.extended_claim_statuses()["default/a"].resource_claim_name
    sim.apiserver.delete_pod("default/a", by="test")
    assert sim.run()
    cs = sim.scheduler.cluster
    assert f"default/{first}" not in cs.resource_claims
    assert "default/a" not in cs.extended_claim_statuses()
    assert sim.result(True)["pods"][1]["node"] == "n1"
    assert list(extended_claims(sim).values()) == [["g0"]]


def test_init_containers_reuse_and_share_requests() -> None:
    init = ("  initContainers:\n"
            "  - {name: setup1, image: x, resources: {limits: {example.com/gpu: '1'}}}\n"
            "  - {name: setup2, image: x, resources: {limits: {example.com/gpu: '3'}}}\n")
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0", "g1", "g2", "g3"), pod("p", 2, init=init))
    assert pods["p"]["node"] == "n1"
    cs = sim.scheduler.cluster
    status = cs.extended_claim_statuses()["default/p"]
    claim = cs.resource_claims[f"default/{status.resource_claim_name}"]
    # The app container (index 2) asks for 2; setup1 reuses them; setup2 needs 1 more, which is
    # the one short-lived request.
    assert [(r.name, r.exactly.count) for r in claim.spec.requests] == [
        ("container-1-request-0", 1), ("container-2-request-1", 2)]
    assert [(m.container_name, m.request_name) for m in status.request_mappings] == [
        ("app", "container-2-request-1"), ("setup1", "container-2-request-1"),
        ("setup2", "container-2-request-1"), ("setup2", "container-1-request-0")]
    assert len(claim.allocation.results) == 3


def test_gate_off_ignores_the_field_as_before() -> None:
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0"), pod("a"), gates=None)
    assert pods["a"]["status"] == "Pending"
    assert pods["a"]["message"] == ("0/1 nodes are available: 1 Insufficient example.com/gpu. no new claims to "
                                    "deallocate, preemption: 0/1 nodes are available: 1 Preemption is not "
                                    "helpful for scheduling.")
    assert sim.scheduler.cluster.resource_claims == {}
    assert sim.scheduler.cluster.extended_claim_statuses() == {}


def test_gate_off_output_is_identical_with_and_without_the_field() -> None:
    plain = CLASS.replace("  extendedResourceName: example.com/gpu\n", "")
    outs = []
    for cls in (CLASS, plain):
        sim, _ = run(cls, node("n1"), gpu_slice("n1", "g0"), pod("a"), gates=None)
        outs.append(sim.result(True))
    assert outs[0] == outs[1]


def test_same_run_twice_is_identical() -> None:
    docs = (CLASS, node("n1"), node("n2"), gpu_slice("n1", "g0", "g1"), gpu_slice("n2", "g0"),
            pod("a", 2), pod("b"), pod("c"))
    results = []
    for _ in range(2):
        sim, _pods = run(*docs)
        results.append((sim.result(True), sorted(extended_claims(sim).items()),
                        sorted((k, v.resource_claim_name) for k, v in sim.scheduler.cluster.extended_claim_statuses().items())))
    assert results[0] == results[1]
    assert len(results[0][1]) == 2  # three devices: a takes two, b one, c waits
    assert [p["status"] for p in results[0][0]["pods"]] == ["Bound", "Bound", "Pending"]


def test_pod_with_a_claim_and_an_extended_resource_gets_both() -> None:
    mixed = (pod("m").replace("spec:\n", "spec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n", 1))
    sim, pods = run(CLASS, TEMPLATE, node("n1"), gpu_slice("n1", "g0", "g1"), mixed)
    assert pods["m"]["node"] == "n1"
    devices = sorted(r.device for c in sim.scheduler.cluster.resource_claims.values() for r in c.allocation.results)
    assert devices == ["g0", "g1"]
    assert len(extended_claims(sim)) == 1


@pytest.mark.parametrize(("value", "message"), [
    ("gpu", "a name must be a domain-prefixed path, such as 'example.com/my-prop'"),
    ("example.kubernetes.io/gpu", 'must not have "kubernetes.io/" domain'),
    ("requests.example.com/gpu", 'must not have "requests." prefix'),
])
def test_invalid_extended_resource_name_is_refused(value: str, message: str) -> None:
    bad = CLASS.replace("example.com/gpu", value)
    with pytest.raises(ScenarioError) as exc:
        load_scenario_text(bad)
    assert "spec.extendedResourceName" in str(exc.value) and message in str(exc.value)


def test_field_is_exported_and_no_longer_reported_as_not_simulated() -> None:
    sc = load_scenario_text(CLASS)
    assert sc.device_classes[0].extended_resource_name == "example.com/gpu"
    assert not [w for w in sc.warnings if "extendedResourceName" in str(w)]
    assert "extendedResourceName: example.com/gpu" in dump_scenario(sc)


def test_upstream_quirk_kept_claim_plus_device_plugin_node_fails_prebind() -> None:
    """v1.35.4: a pod with its own claim whose extended resource a device plugin serves on the
    node gets an empty special claim there; PreBind creates it, finds no request mappings and
    fails, and Unreserve deletes it again. Kept as upstream does it."""
    mixed = pod("m").replace("spec:\n", "spec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: one-gpu}\n", 1)
    sim = Simulation(load_scenario_text("\n---\n".join([CLASS, TEMPLATE, node("n1", gpus=2), gpu_slice("n1", "g0"), mixed])),
                     record_events=True, feature_gates=GATE)
    sim.step()
    pods = {p["name"]: p for p in sim.result(True)["pods"]}
    assert pods["m"]["status"] == "Pending"
    assert pods["m"]["message"] == ("running PreBind plugin \"DynamicResources\": nil or empty request mappings, "
                                    "no update of pod default/m ExtendedResourceClaimStatus")
    assert extended_claims(sim) == {}  # created, then deleted by Unreserve


def packing(resource_weight: str = "[{name: example.com/gpu, weight: 1}]") -> str:
    return ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
            "- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
            f"      scoringStrategy: {{type: MostAllocated, resources: {resource_weight}}}\n")


def fit_scores(sim: Simulation, pod_key: str) -> dict[str, int]:
    """NodeResourcesFit's raw score per node in the pod's last scored cycle."""
    e = [e for e in sim.sink.events if e["type"] == "scores" and e["pod"] == pod_key][-1]
    column = e["raw"]["NodeResourcesFit"]
    return dict(zip(e["nodes"], column if isinstance(column, list) else [column] * len(e["nodes"]), strict=True))


def test_scoring_counts_a_nodes_devices_as_its_allocatable() -> None:
    # MostAllocated over example.com/gpu only. first takes two of n1's four GPUs; next then scores
    # (2+1)/4 on n1 and 1/4 on n2 (devices of the class as allocatable, held ones as requested).
    first = pod("first", 2, extra="  nodeSelector: {kubernetes.io/hostname: n1}\n")
    docs = [packing(), CLASS, node("n1"), node("n2"), gpu_slice("n1", "a0", "a1", "a2", "a3"),
            gpu_slice("n2", "b0", "b1", "b2", "b3"), first, pod("next")]
    sim, pods = run(*docs)
    assert fit_scores(sim, "default/next") == {"n1": 75, "n2": 25}
    assert pods["next"]["node"] == "n1"


def test_later_class_takes_over_a_shared_name_and_implicit_names_stay() -> None:
    old = CLASS.replace("name: gpu}", "name: gpu-old}").replace('"gpu.example.com"', '"old.example.com"')
    new = CLASS.replace("name: gpu}", "name: gpu-new}")
    old_slice = gpu_slice("n1", "o0").replace("gpu.example.com", "old.example.com").replace("n1-gpu", "n1-old")
    old_slice = old_slice.replace("pool: {name: n1,", "pool: {name: n1-old,")
    sim, pods = run(old, new, node("n1"), gpu_slice("n1", "g0"), old_slice,
                    pod("by-name"), pod("by-old-class", resource="deviceclass.resource.kubernetes.io/gpu-old"))
    assert pods["by-name"]["node"] == pods["by-old-class"]["node"] == "n1"
    held = {c.name.split("-extended-")[0]: c.allocation.results[0].device
            for c in sim.scheduler.cluster.resource_claims.values()}
    assert held == {"by-name": "g0", "by-old-class": "o0"}


def test_fit_queues_a_pod_when_a_class_starts_serving_its_resource() -> None:
    from scheduler_core.api.resource_types import DeviceClass
    from scheduler_core.framework.plugins.noderesources.fit import Fit
    from scheduler_core.framework.types import QueueingHint

    sc = load_scenario_text(pod("p") + "---\n" + pod("q", resource="deviceclass.resource.kubernetes.io/gpu"))
    p, q = sc.pods
    hint = Fit.is_schedulable_after_device_class_event
    plain, named = DeviceClass(name="gpu"), DeviceClass(name="gpu", extended_resource_name="example.com/gpu")
    assert hint(p, None, named) == QueueingHint.QUEUE
    assert hint(p, None, plain) == QueueingHint.SKIP
    assert hint(q, None, plain) == QueueingHint.QUEUE  # the implicit name, on Add
    assert hint(p, plain, named) == QueueingHint.QUEUE
    assert hint(p, named, named) == QueueingHint.SKIP
    assert hint(q, plain, named) == QueueingHint.SKIP  # an update never changes the implicit name
