"""DynamicResources and the resourceclaim controller in whole runs: claims from templates,
PreEnqueue gating, PreBind's allocation and reservation, PostFilter's deallocation, Score's
preference for earlier subrequests, devices freed when their pod is deleted, and v1.30."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
"""


def node(name: str, cpu: str = "8") -> str:
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
            f"status: {{capacity: {{cpu: '{cpu}', memory: 32Gi}}}}\n")


def gpu_slice(node_name: str, *names: str, memory: str = "40Gi") -> str:
    devs = "".join(f"  - name: {d}\n    capacity: {{memory: {{value: {memory}}}}}\n" for d in names)
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {node_name}-gpu}}\n"
            f"spec:\n  driver: gpu.example.com\n  nodeName: {node_name}\n"
            f"  pool: {{name: {node_name}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devs}")


TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, exactly: {deviceClassName: gpu}}
"""


def pod(name: str, claim: str = "resourceClaimTemplateName: one-gpu", extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}"
            f"  resourceClaims:\n  - {{name: gpu, {claim}}}\n"
            "  containers:\n  - name: app\n    image: cuda\n"
            "    resources: {requests: {cpu: 500m}, claims: [{name: gpu}]}\n")


def run(*docs: str, version: str | None = None) -> tuple[Simulation, dict]:
    sim = Simulation(load_scenario_text("\n---\n".join(docs)), record_events=True, kubernetes_version=version)
    assert sim.run()
    out = sim.result(True)
    return sim, {p["name"]: p for p in out["pods"]}


def claim_events(sim: Simulation) -> list[tuple[str, str, str]]:
    return [(e["action"], e["claim"], e["by"]) for e in sim.sink.events if e["type"] == "resource_claim"]


def test_template_claim_is_generated_allocated_and_reserved() -> None:
    sim, pods = run(CLASS, node("n1"), node("n2"), gpu_slice("n2", "g0"), TEMPLATE, pod("train"))
    assert pods["train"]["status"] == "Bound" and pods["train"]["node"] == "n2"
    cs = sim.scheduler.cluster
    p = cs.pods["default/train"]
    assert p.resource_claim_statuses == {"gpu": "train-gpu"}
    claim = cs.resource_claims["default/train-gpu"]
    assert [(o.kind, o.name, o.uid, o.controller) for o in claim.owner_references] == [("Pod", "train", p.uid, True)]
    assert [(r.request, r.driver, r.pool, r.device) for r in claim.allocation.results] == [
        ("gpu", "gpu.example.com", "n2", "g0")]
    assert claim.allocation.node_selector.node_selector_terms[0].match_fields[0].values == ("n2",)
    assert [(r.resource, r.name, r.uid) for r in claim.reserved_for] == [("pods", "train", p.uid)]
    assert claim_events(sim) == [("created", "default/train-gpu", "ResourceClaimController"),
                                 ("allocated", "default/train-gpu", "DynamicResources")]
    verdicts = [e for e in sim.sink.events if e["type"] == "extension_point" and e["point"] == "PreBind"]
    assert verdicts and verdicts[-1]["code"] == "Success"


def test_missing_template_or_claim_keeps_the_pod_out_without_a_message() -> None:
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0"),
                    pod("no-template", "resourceClaimTemplateName: nope"),
                    pod("no-claim", "resourceClaimName: nope"))
    for name in ("no-template", "no-claim"):
        assert pods[name]["status"] == "Pending" and pods[name]["message"] is None
    assert not [e for e in sim.sink.events if e["type"] == "cycle_started"]
    gated = [e for e in sim.sink.events if e["type"] == "queue_move" and e["to"] == "gated"]
    assert {e["pod"] for e in gated} == {"default/no-template", "default/no-claim"}


def test_deleting_the_holder_frees_the_device_for_the_waiting_pod() -> None:
    timeline = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                "- {at: 10, action: deletePod, pod: first}\n")
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0"), TEMPLATE, pod("first"), pod("second"), timeline)
    assert pods["first"]["status"] == "Deleted"
    assert pods["second"]["status"] == "Bound" and pods["second"]["node"] == "n1"
    cs = sim.scheduler.cluster
    assert "default/first-gpu" not in cs.resource_claims  # owned by the pod: deleted with it
    assert cs.resource_claims["default/second-gpu"].allocation.results[0].device == "g0"
    assert claim_events(sim) == [
        ("created", "default/first-gpu", "ResourceClaimController"),
        ("created", "default/second-gpu", "ResourceClaimController"),
        ("allocated", "default/first-gpu", "DynamicResources"),
        ("deallocated", "default/first-gpu", "ResourceClaimController"),
        ("deleted", "default/first-gpu", "ResourceClaimController"),
        ("allocated", "default/second-gpu", "DynamicResources"),
    ]
    failed = [e for e in sim.sink.events if e["type"] == "k8s_event" and e["reason"] == "FailedScheduling"]
    assert failed[0]["message"] == ("0/1 nodes are available: 1 cannot allocate all claims. still not "
                                    "schedulable, preemption: 0/1 nodes are available: 1 Preemption is not "
                                    "helpful for scheduling.")


def test_shared_claim_pins_every_user_to_its_node() -> None:
    shared = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}
"""
    sim, pods = run(CLASS, node("n1"), node("n2"), node("n3"), gpu_slice("n3", "g0"), shared,
                    pod("a", "resourceClaimName: shared"), pod("b", "resourceClaimName: shared"))
    assert pods["a"]["node"] == "n3" and pods["b"]["node"] == "n3"
    claim = sim.scheduler.cluster.resource_claims["default/shared"]
    assert [r.name for r in claim.reserved_for] == ["a", "b"]
    assert [a for a, _, _ in claim_events(sim)] == ["allocated", "reserved"]


def test_postfilter_deallocates_an_unreserved_claim_allocated_elsewhere() -> None:
    warm = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: warm}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: n2, device: g0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]
"""
    sim, pods = run(CLASS, node("n1"), node("n2"), gpu_slice("n1", "g0"), gpu_slice("n2", "g0"), warm,
                    pod("p", "resourceClaimName: warm", extra="  nodeSelector: {kubernetes.io/hostname: n1}\n"))
    assert pods["p"]["status"] == "Bound" and pods["p"]["node"] == "n1"
    failed = [e["message"] for e in sim.sink.events if e["type"] == "k8s_event" and e["reason"] == "FailedScheduling"]
    assert failed == ["0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 resourceclaim "
                      "not available on the node. deallocation of ResourceClaim completed, preemption: 0/2 nodes are "
                      "available: 2 Preemption is not helpful for scheduling."]
    assert [(a, b) for a, _, b in claim_events(sim)] == [("deallocated", "DynamicResources"),
                                                         ("allocated", "DynamicResources")]


def test_first_available_scores_the_preferred_subrequest_higher() -> None:
    fa = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: fa}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: pair, deviceClassName: gpu, count: 2}
        - {name: single, deviceClassName: gpu}
"""
    # n1 sorts first and has room for one device only; n2 can give the preferred pair.
    sim, pods = run(CLASS, node("n1"), node("n2"), gpu_slice("n1", "g0"), gpu_slice("n2", "g0", "g1"), fa,
                    pod("p", "resourceClaimTemplateName: fa"))
    assert pods["p"]["node"] == "n2"
    claim = sim.scheduler.cluster.resource_claims["default/p-gpu"]
    assert [r.request for r in claim.allocation.results] == ["gpu/pair", "gpu/pair"]
    scores = [e for e in sim.sink.events if e["type"] == "scores"]
    assert scores[-1]["nodes"] == ["n1", "n2"]
    assert scores[-1]["raw"]["DynamicResources"] == [7, 8]  # 8 - index of the chosen subrequest
    assert scores[-1]["normalized"]["DynamicResources"] == [87, 100]


def test_v130_ignores_claims_and_says_so() -> None:
    sim, pods = run(CLASS, node("n1"), TEMPLATE, pod("train"), version="v1.30")
    assert pods["train"]["status"] == "Bound"  # no DynamicResources in v1.30's profile
    assert sim.version_notes and "device claims are not simulated" in sim.version_notes[0]
    started = next(e for e in sim.sink.events if e["type"] == "run_started")
    assert started["notes"] == sim.version_notes
    assert sim.scheduler.cluster.resource_claims == {}


def test_pods_without_claims_skip_the_plugin() -> None:
    sim, pods = run(node("n1"), "apiVersion: v1\nkind: Pod\nmetadata: {name: plain}\nspec:\n"
                                "  containers: [{name: c, image: pause}]\n")
    assert pods["plain"]["status"] == "Bound"
    assert not [e for e in sim.sink.events if e["type"] == "resource_claim"]


def test_checkpoint_restore_keeps_claims_and_allocations() -> None:
    sc = load_scenario_text("\n---\n".join([CLASS, node("n1"), gpu_slice("n1", "g0", "g1"), TEMPLATE,
                                            pod("a"), pod("b"), pod("c")]))
    first = Simulation(sc)
    first.step()
    again = Simulation.restore(first.checkpoint())
    assert first.run() and again.run()
    assert first.result(True)["pods"] == again.result(True)["pods"]
    assert again.scheduler.cluster.resource_claims == first.scheduler.cluster.resource_claims
    assert type(again.scheduler.cluster.pods["default/a"]).__name__ == "ClaimingPod"


def test_deployment_pods_and_timeline_pods_get_their_claims() -> None:
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  replicas: 2
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec:
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
      containers:
      - name: app
        image: cuda
        resources: {requests: {cpu: 500m}, claims: [{name: gpu}]}
"""
    timeline = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                "- at: 5\n  action: addPod\n  pod:\n" + "\n".join("    " + line for line in pod("late").splitlines()) + "\n")
    sim, pods = run(CLASS, node("n1"), gpu_slice("n1", "g0", "g1", "g2"), TEMPLATE, deployment, timeline)
    assert all(p["status"] == "Bound" for p in pods.values()) and len(pods) == 3
    claims = sim.scheduler.cluster.resource_claims
    assert sorted(c.allocation.results[0].device for c in claims.values()) == ["g0", "g1", "g2"]
    assert "default/late-gpu" in claims
    assert sum(1 for k in claims if k.startswith("default/infer-")) == 2
