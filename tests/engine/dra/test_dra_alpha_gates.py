"""The DRA alpha gates of v1.35 in whole runs: DRADeviceTaints (tainted devices are skipped unless
the request tolerates the taint) and DRAPartitionableDevices (devices that consume shared
counters are allocated only while the pool's counters last). Each gate off behaves as the
apiserver with the gate off, which drops the fields: the devices are allocated as if untainted and
uncounted."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.export import dump_scenario
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation
from tests.engine.dra.test_dra_plugin import CLASS, node, pod

UNTOLERATED = ("0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
               "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def tainted_slice(effect: str = "NoSchedule") -> str:
    return f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: n1-gpu}}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    taints: [{{key: example.com/unhealthy, value: ecc, effect: {effect}}}]
  - name: gpu-1
"""


def template(name: str = "one-gpu", tolerations: str = "") -> str:
    tol = f", tolerations: {tolerations}" if tolerations else ""
    return f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {name}}}
spec:
  spec:
    devices:
      requests:
      - {{name: gpu, exactly: {{deviceClassName: gpu{tol}}}}}
"""


def run(docs: list[str], gates: str | None = None) -> tuple[Simulation, dict[str, dict]]:
    sim = Simulation(load_scenario_text("\n---\n".join(docs)), record_events=True, feature_gates=gates)
    assert sim.run()
    return sim, {p["name"]: p for p in sim.result(True)["pods"]}


def devices_of(sim: Simulation) -> dict[str, list[str]]:
    """claim name -> the devices its allocation names."""
    return {c.name: [r.device for r in c.allocation.results]
            for c in sim.scheduler.cluster.resource_claims.values() if c.allocation is not None}


# ---- DRADeviceTaints ---------------------------------------------------------------------------
def test_gate_off_taints_are_ignored_as_the_apiserver_drops_them() -> None:
    sim, pods = run([CLASS, node("n1"), tainted_slice(), template(), pod("a"), pod("b")])
    assert pods["a"]["node"] == pods["b"]["node"] == "n1"
    assert devices_of(sim) == {"a-gpu": ["gpu-0"], "b-gpu": ["gpu-1"]}


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_untolerated_taint_keeps_the_device_free(effect: str) -> None:
    sim, pods = run([CLASS, node("n1"), tainted_slice(effect), template(), pod("a"), pod("b")],
                    "DRADeviceTaints=true")
    assert pods["a"]["node"] == "n1"
    assert devices_of(sim) == {"a-gpu": ["gpu-1"]}
    assert pods["b"]["status"] == "Pending"
    assert pods["b"]["message"] == UNTOLERATED


def test_effect_none_is_informational() -> None:
    sim, _ = run([CLASS, node("n1"), tainted_slice("None"), template(), pod("a")], "DRADeviceTaints=true")
    assert devices_of(sim) == {"a-gpu": ["gpu-0"]}


@pytest.mark.parametrize("toleration", [
    "[{key: example.com/unhealthy, operator: Exists}]",
    "[{key: example.com/unhealthy, value: ecc, effect: NoSchedule}]",
    "[{operator: Exists}]",
])
def test_tolerated_taint_allows_the_device_and_is_recorded(toleration: str) -> None:
    sim, pods = run([CLASS, node("n1"), tainted_slice(), template("tolerant", toleration),
                     pod("a", "resourceClaimTemplateName: tolerant")], "DRADeviceTaints=true")
    assert pods["a"]["node"] == "n1"
    claim = sim.scheduler.cluster.resource_claims["default/a-gpu"]
    assert [r.device for r in claim.allocation.results] == ["gpu-0"]
    assert claim.allocation.results[0].tolerations  # copied from the request, as upstream


@pytest.mark.parametrize("toleration", [
    "[{key: example.com/unhealthy, value: other}]",
    "[{key: example.com/unhealthy, operator: Exists, effect: NoExecute}]",
])
def test_non_matching_toleration_does_not_help(toleration: str) -> None:
    sim, pods = run([CLASS, node("n1"), tainted_slice(), template("t", toleration),
                     pod("a", "resourceClaimTemplateName: t")], "DRADeviceTaints=true")
    assert devices_of(sim) == {"a-gpu": ["gpu-1"]}


# ---- DRAPartitionableDevices -------------------------------------------------------------------
PARTITIONS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-counters}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 40Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-partitions}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 40Gi}}}]
  - name: gpu-0-half-0
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 20Gi}}}]
  - name: gpu-0-half-1
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 20Gi}}}]
"""


def test_partitions_share_the_counters() -> None:
    sim, pods = run([CLASS, node("n1"), PARTITIONS, template(), pod("a"), pod("b")],
                    "DRAPartitionableDevices=true")
    # a takes the whole GPU (all 40Gi of its counter): no partition fits after it.
    assert devices_of(sim) == {"a-gpu": ["gpu-0"]}
    assert pods["b"]["status"] == "Pending"
    assert pods["b"]["message"] == UNTOLERATED


def test_half_partitions_fit_twice() -> None:
    halves = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: half}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].half == true'}}]
"""
    parts = PARTITIONS.replace("  - name: gpu-0\n", "  - name: gpu-0\n    attributes: {half: {bool: false}}\n")
    parts = parts.replace("  - name: gpu-0-half-0\n", "  - name: gpu-0-half-0\n    attributes: {half: {bool: true}}\n")
    parts = parts.replace("  - name: gpu-0-half-1\n", "  - name: gpu-0-half-1\n    attributes: {half: {bool: true}}\n")
    sim, pods = run([CLASS, node("n1"), parts, halves, template(),
                     pod("a", "resourceClaimTemplateName: half"), pod("b", "resourceClaimTemplateName: half"),
                     pod("c")], "DRAPartitionableDevices=true")
    assert devices_of(sim) == {"a-gpu": ["gpu-0-half-0"], "b-gpu": ["gpu-0-half-1"]}
    assert pods["c"]["status"] == "Pending"  # the whole GPU's counters are used up by the halves


def test_gate_off_counters_are_ignored() -> None:
    sim, pods = run([CLASS, node("n1"), PARTITIONS, template(), pod("a"), pod("b"), pod("c")])
    assert devices_of(sim) == {"a-gpu": ["gpu-0"], "b-gpu": ["gpu-0-half-0"], "c-gpu": ["gpu-0-half-1"]}


def test_a_device_consuming_an_unknown_counter_set_makes_the_pool_invalid() -> None:
    bad = PARTITIONS.replace("counterSet: gpu-0-counters, counters: {memory: {value: 40Gi}}",
                             "counterSet: nope, counters: {memory: {value: 40Gi}}")
    _, pods = run([CLASS, node("n1"), bad, template(), pod("a")], "DRAPartitionableDevices=true")
    assert pods["a"]["status"] == "Pending"
    assert "1 invalid resource pools were encountered" in pods["a"]["message"]


# ---- the loader ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("fragment", "where", "why"), [
    ("taints: [{key: a, effect: Sometimes}]", "spec.devices[0].taints[0].effect", 'Unsupported value: "Sometimes"'),
    ("taints: [{value: x, effect: NoSchedule}]", "spec.devices[0].taints[0].key", "Required value"),
    ("taints: [{key: a, effect: NoSchedule, colour: red}]", "spec.devices[0].taints[0].colour", "unknown field"),
    ("consumesCounters: [{counterSet: s, counters: {m: {value: 1, max: 2}}}]",
     "spec.devices[0].consumesCounters[0].counters.m.max", "unknown field"),
    ("consumesCounters: [{counterSet: s, counters: {m: {value: -1}}}]",
     "spec.devices[0].consumesCounters[0].counters.m.value", "must be greater than or equal to 0"),
])
def test_loader_refuses_bad_alpha_fields_with_a_location(fragment: str, where: str, why: str) -> None:
    doc = ("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
           "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: p, resourceSliceCount: 1}\n"
           f"  devices:\n  - name: d\n    {fragment}\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, node("n1"), doc]))
    assert where in str(err.value) and why in str(err.value)


def test_loader_refuses_a_bad_toleration_operator() -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, template("t", "[{key: a, operator: Gt, value: '1'}]")]))
    assert "spec.spec.devices.requests[0].exactly.tolerations[0].operator" in str(err.value)
    assert 'Unsupported value: "Gt"' in str(err.value)


def test_slice_with_devices_and_counters_is_refused() -> None:
    doc = PARTITIONS.split("---\n")[0] + "  devices: [{name: d}]\n"
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, node("n1"), doc]))
    assert "only one of `devices`, `sharedCounters` may be set" in str(err.value)


def test_alpha_fields_export_and_load_back() -> None:
    scenario = load_scenario_text("\n---\n".join(
        [CLASS, node("n1"), tainted_slice(), PARTITIONS.replace("n1-", "m1-").replace("name: n1,", "name: m1,"),
         template("t", "[{key: example.com/unhealthy, operator: Exists}]")]))
    text = dump_scenario(scenario)
    again = load_scenario_text(text)
    assert dump_scenario(again) == text
    assert "taints" in text and "sharedCounters" in text and "consumesCounters" in text and "tolerations" in text


PER_DEVICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices:
  - name: link-0
    nodeName: n2
  - name: link-1
    nodeSelector:
      nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [a]}]}]
"""


def test_per_device_node_selection_places_the_pod_where_the_device_is() -> None:
    sim, pods = run([CLASS, node("n1"), node("n2"), PER_DEVICE, template(), pod("a")],
                    "DRAPartitionableDevices=true")
    assert pods["a"]["node"] == "n2"
    claim = sim.scheduler.cluster.resource_claims["default/a-gpu"]
    assert [r.device for r in claim.allocation.results] == ["link-0"]
    term = claim.allocation.node_selector.node_selector_terms[0]
    assert [(f.key, f.values) for f in term.match_fields] == [("metadata.name", ("n2",))]


def test_per_device_node_selector_device() -> None:
    rack = node("n3").replace("labels: {", "labels: {rack: a, ")
    sim, pods = run([CLASS, node("n1"), rack, PER_DEVICE.replace("nodeName: n2", "nodeName: n9"),
                     template(), pod("a")], "DRAPartitionableDevices=true")
    assert pods["a"]["node"] == "n3"
    term = sim.scheduler.cluster.resource_claims["default/a-gpu"].allocation.node_selector.node_selector_terms[0]
    assert [(e.key, e.values) for e in term.match_expressions] == [("rack", ("a",))]


def test_per_device_slice_is_left_out_without_the_gate() -> None:
    _, pods = run([CLASS, node("n1"), node("n2"), PER_DEVICE, template(), pod("a")])
    assert pods["a"]["status"] == "Pending"
    assert "2 cannot allocate all claims" in pods["a"]["message"]


def test_device_node_selection_needs_the_slice_flag() -> None:
    doc = PER_DEVICE.replace("  perDeviceNodeSelection: true\n", "  allNodes: true\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, doc]))
    assert "spec.devices[0].nodeName" in str(err.value)
    assert "may only be set when `perDeviceNodeSelection` is true" in str(err.value)


# ---- DRAConsumableCapacity -----------------------------------------------------------------------
SHARED = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-nic}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: nic-0
    allowMultipleAllocations: true
    capacity:
      bandwidth:
        value: 40G
        requestPolicy:
          default: 10G
          validRange: {min: 10G, step: 10G}
"""


def share_template(name: str, amount: str | None) -> str:
    cap = f", capacity: {{requests: {{bandwidth: {amount}}}}}" if amount else ""
    return f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {name}}}
spec:
  spec:
    devices:
      requests:
      - {{name: gpu, exactly: {{deviceClassName: gpu{cap}}}}}
"""


def test_shares_consume_capacity_rounded_up_to_the_policy() -> None:
    sim, pods = run([CLASS, node("n1"), SHARED, share_template("s15", "15G"),
                     pod("a", "resourceClaimTemplateName: s15"), pod("b", "resourceClaimTemplateName: s15"),
                     pod("c", "resourceClaimTemplateName: s15")], "DRAConsumableCapacity=true")
    # 15G rounds up to 20G (min 10G, step 10G): two shares fill the 40G device.
    assert pods["a"]["node"] == pods["b"]["node"] == "n1"
    assert pods["c"]["status"] == "Pending"
    results = {c.name: c.allocation.results[0] for c in sim.scheduler.cluster.resource_claims.values()
               if c.allocation is not None}
    assert {r.device for r in results.values()} == {"nic-0"}
    assert all(str(r.consumed_capacity["bandwidth"]) == "20000000000" for r in results.values())
    ids = {r.share_id for r in results.values()}
    assert len(ids) == 2 and None not in ids


def test_default_share_when_nothing_is_requested() -> None:
    docs = [CLASS, node("n1"), SHARED, share_template("plain", None)]
    docs += [pod(f"p{i}", "resourceClaimTemplateName: plain") for i in range(5)]
    _, pods = run(docs, "DRAConsumableCapacity=true")
    assert sorted(p["name"] for p in pods.values() if p["node"] == "n1") == ["p0", "p1", "p2", "p3"]


def test_gate_off_a_shared_device_is_allocated_once() -> None:
    _, pods = run([CLASS, node("n1"), SHARED, share_template("s15", "15G"),
                   pod("a", "resourceClaimTemplateName: s15"), pod("b", "resourceClaimTemplateName: s15")])
    assert pods["a"]["node"] == "n1" and pods["b"]["status"] == "Pending"


def test_a_request_over_the_policy_maximum_does_not_fit() -> None:
    capped = SHARED.replace("validRange: {min: 10G, step: 10G}", "validRange: {min: 10G, max: 20G}")
    _, pods = run([CLASS, node("n1"), capped, share_template("big", "30G"),
                   pod("a", "resourceClaimTemplateName: big")], "DRAConsumableCapacity=true")
    assert pods["a"]["status"] == "Pending"


def test_distinct_attribute_needs_different_devices() -> None:
    nics = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-nics}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: nic-0, allowMultipleAllocations: true, attributes: {port: {int: 0}}}
  - {name: nic-1, allowMultipleAllocations: true, attributes: {port: {int: 1}}}
"""
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-ports}
spec:
  devices:
    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: b, exactly: {deviceClassName: gpu}}
    constraints:
    - {requests: [a, b], distinctAttribute: gpu.example.com/port}
"""
    sim, pods = run([CLASS, node("n1"), nics, claim, pod("x", "resourceClaimName: two-ports")],
                    "DRAConsumableCapacity=true")
    assert pods["x"]["node"] == "n1"
    assert devices_of(sim) == {"two-ports": ["nic-0", "nic-1"]}


def test_loader_refuses_a_policy_on_a_device_that_cannot_be_shared() -> None:
    doc = SHARED.replace("    allowMultipleAllocations: true\n", "")
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, node("n1"), doc]))
    assert "spec.devices[0].capacity.bandwidth.requestPolicy" in str(err.value)
    assert "allowMultipleAllocations must be true" in str(err.value)


ALLOCATED_SHARE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu, capacity: {requests: {bandwidth: 30G}}}}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: n1, device: nic-0,
         shareID: 4f9f0b4e-0000-4000-8000-000000000001, consumedCapacity: {bandwidth: 30G}}
"""


def test_consumable_fields_export_and_load_back() -> None:
    scenario = load_scenario_text("\n---\n".join([CLASS, node("n1"), SHARED, share_template("s15", "15G"),
                                                   ALLOCATED_SHARE]))
    text = dump_scenario(scenario)
    assert "requestPolicy" in text and "allowMultipleAllocations" in text and "bandwidth: 15G" in text
    assert "shareID" in text and "consumedCapacity" in text
    assert dump_scenario(load_scenario_text(text)) == text


def test_an_allocated_share_counts_against_the_device() -> None:
    # 30G of the 40G are held by an allocated share: a 20G share no longer fits, a 10G one does.
    _, pods = run([CLASS, node("n1"), SHARED, ALLOCATED_SHARE, share_template("s20", "20G"),
                   share_template("s10", "10G"), pod("a", "resourceClaimTemplateName: s20"),
                   pod("b", "resourceClaimTemplateName: s10")], "DRAConsumableCapacity=true")
    assert pods["a"]["status"] == "Pending"
    assert pods["b"]["node"] == "n1"


# ---- the gallery scenarios, with and without their gate -----------------------------------------
GALLERY = Path(__file__).resolve().parents[3] / "playground" / "gallery"


@pytest.mark.parametrize(("slug", "gate", "on", "off"), [
    ("dra-device-taints", "DRADeviceTaints=true",
     {"job-1": "gpu-a", "diag": "gpu-a", "job-2": None},
     {"job-1": "gpu-a", "diag": "gpu-b", "job-2": "gpu-a"}),
    ("dra-partitionable-devices", "DRAPartitionableDevices=true",
     {"small-1": "gpu-a", "small-2": "gpu-a", "half-1": "gpu-a", "trainer": None},
     {"small-1": "gpu-a", "small-2": "gpu-a", "half-1": "gpu-a", "trainer": "gpu-a"}),
    ("dra-consumable-capacity", "DRAConsumableCapacity=true",
     {"web-1": "net-a", "web-2": "net-a", "web-3": "net-a", "batch": None},
     {"web-1": "net-a", "web-2": None, "web-3": None, "batch": None}),
    ("dra-extended-resource", "DRAExtendedResource=true",
     {"train": "gpu-a", "infer": "legacy", "notebook": "gpu-a", "batch": None},
     {"train": None, "infer": "legacy", "notebook": None, "batch": None}),
])
def test_gallery_scenario_depends_on_its_gate(slug: str, gate: str, on: dict, off: dict) -> None:
    text = (GALLERY / f"{slug}.yaml").read_text()
    assert f"# feature-gates: {gate}" in text
    for gates, want in ((gate, on), (None, off)):
        sim = Simulation(load_scenario_text(text), seed=0, feature_gates=gates)
        sim.run(3600.0)
        assert {p["name"]: p["node"] for p in sim.result(True)["pods"]} == want, gates


def test_the_devices_view_shows_taints_counters_and_shares() -> None:
    views = {}
    for slug, gate in (("dra-device-taints", "DRADeviceTaints=true"),
                       ("dra-partitionable-devices", "DRAPartitionableDevices=true"),
                       ("dra-consumable-capacity", "DRAConsumableCapacity=true")):
        sim = Simulation(load_scenario_text((GALLERY / f"{slug}.yaml").read_text()), seed=0, feature_gates=gate)
        sim.run(3600.0)
        views[slug] = {n["name"]: n["devices"] for n in sim.view()["nodes"] if n.get("devices")}
    taints = {i[0]: i for i in views["dra-device-taints"]["gpu-b"]["items"]}
    assert "taint example.com/ecc-errors:NoExecute" in taints["gpu-0"][2]
    parts = views["dra-partitionable-devices"]["gpu-a"]
    assert "counters gpu-0-counters: memory=40Gi" in parts["slices"]
    assert any("uses gpu-0-counters/memory=10Gi" in i[2] for i in parts["items"])
    (nic,) = views["dra-consumable-capacity"]["net-a"]["items"]
    assert "shared" in nic[2]
    assert nic[3] == ("default/web-1-nic (bandwidth=30G); default/web-2-nic (bandwidth=40G); "
                      "default/web-3-nic (bandwidth=10G)")


# ---- DRADeviceTaintRules -------------------------------------------------------------------------
PLAIN_SLICE = tainted_slice().replace(
    "    taints: [{key: example.com/unhealthy, value: ecc, effect: NoSchedule}]\n", "")


def rule(selector: str = "{driver: gpu.example.com, pool: n1, device: gpu-0}", name: str = "drain-gpu-0") -> str:
    sel = f"  deviceSelector: {selector}\n" if selector else ""
    return (f"apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {{name: {name}}}\n"
            f"spec:\n{sel}  taint: {{key: example.com/drain, effect: NoExecute}}\n")


RULE_GATES = "DRADeviceTaints=true,DRADeviceTaintRules=true"


def test_a_taint_rule_taints_the_devices_it_selects() -> None:
    sim, pods = run([CLASS, node("n1"), PLAIN_SLICE, rule(), template(), pod("a"), pod("b")], RULE_GATES)
    assert devices_of(sim) == {"a-gpu": ["gpu-1"]}
    assert pods["b"]["message"] == UNTOLERATED


def test_a_rule_selecting_the_driver_taints_every_device_and_no_selector_none() -> None:
    _, pods = run([CLASS, node("n1"), PLAIN_SLICE, rule("{driver: gpu.example.com}"), template(), pod("a")],
                  RULE_GATES)
    assert pods["a"]["status"] == "Pending"
    sim, _ = run([CLASS, node("n1"), PLAIN_SLICE, rule(""), template(), pod("a")], RULE_GATES)
    assert devices_of(sim) == {"a-gpu": ["gpu-0"]}


def test_taint_rules_need_their_gate() -> None:
    sim, _ = run([CLASS, node("n1"), PLAIN_SLICE, rule(), template(), pod("a")], "DRADeviceTaints=true")
    assert devices_of(sim) == {"a-gpu": ["gpu-0"]}


def test_taint_rule_loads_strictly_and_exports() -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, rule("{deviceClassName: gpu}")]))
    assert "spec.deviceSelector.deviceClassName" in str(err.value) and "unknown field" in str(err.value)
    with pytest.raises(ScenarioError) as err:
        load_scenario_text("\n---\n".join([CLASS, rule().replace("effect: NoExecute", "effect: Evict")]))
    assert "spec.taint.effect" in str(err.value) and 'Unsupported value: "Evict"' in str(err.value)
    text = dump_scenario(load_scenario_text("\n---\n".join([CLASS, node("n1"), PLAIN_SLICE, rule()])))
    assert "kind: DeviceTaintRule" in text and dump_scenario(load_scenario_text(text)) == text
