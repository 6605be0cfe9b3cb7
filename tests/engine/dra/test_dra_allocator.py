"""The structured allocator on its own: which devices a node can give a set of claims."""

from __future__ import annotations

import textwrap

import pytest

from scheduler_core.api.types import Node
from scheduler_core.dra.structured.allocator import AllocationError, Allocator, Features
from scheduler_core.dra.structured.pools import SliceIndex
from scheduler_core.loader import load_scenario_text

CLASSES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: big-gpu}
spec:
  selectors: [{cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0'}}]
"""


def gpu_slice(node: str, *devices: tuple[str, str, str], name: str | None = None, extra: str = "") -> str:
    """devices: (name, pcieRoot, memory)."""
    devs = "".join(
        f"  - name: {d}\n    attributes: {{pcieRoot: {{string: {root}}}}}\n    capacity: {{memory: {{value: {mem}}}}}\n"
        for d, root, mem in devices)
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {name or node + '-gpu'}}}\n"
            f"spec:\n  driver: gpu.example.com\n  nodeName: {node}\n{extra}"
            f"  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devs}")


def claim(name: str, requests: str, constraints: str = "", status: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(requests).rstrip("\n") + "\n", "    ")
    text = (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}}}\n"
            f"spec:\n  devices:\n    requests:\n{body}")
    if constraints:
        text += "    constraints:\n" + textwrap.indent(textwrap.dedent(constraints), "    ")
    if status:
        text += "status:\n" + textwrap.indent(textwrap.dedent(status), "  ")
    return text


def setup(*docs: str):
    sc = load_scenario_text("\n---\n".join([CLASSES, *docs]))
    return sc, {c.name: c for c in sc.resource_claims}


def allocator(sc, allocated=()) -> Allocator:
    return Allocator(Features(), set(allocated), {c.name: c for c in sc.device_classes},
                     SliceIndex(sc.resource_slices))


def devices(results) -> list[list[tuple[str, str]]]:
    return [[(r.request, r.device) for r in a.results] for a in results]


N1, N2 = Node(name="n1", labels={"zone": "a"}), Node(name="n2", labels={"zone": "b"})
SLICES = [gpu_slice("n1", ("g0", "p0", "40Gi"), ("g1", "p1", "80Gi"), ("g2", "p1", "80Gi")),
          gpu_slice("n2", ("g0", "p0", "40Gi"))]


def test_exact_count_takes_devices_in_slice_order() -> None:
    sc, c = setup(*SLICES, claim("two", "- {name: r, exactly: {deviceClassName: gpu, count: 2}}"))
    out = allocator(sc).allocate(N1, [c["two"]])
    assert devices(out) == [[("r", "g0"), ("r", "g1")]]
    assert out[0].node_selector.node_selector_terms[0].match_fields[0].values == ("n1",)
    assert allocator(sc).allocate(N2, [c["two"]]) is None  # one device there


def test_allocated_devices_and_earlier_claims_are_skipped() -> None:
    sc, c = setup(*SLICES, claim("a", "- {name: r, exactly: {deviceClassName: gpu}}"),
                  claim("b", "- {name: r, exactly: {deviceClassName: gpu, count: 2}}"))
    out = allocator(sc, {("gpu.example.com", "n1", "g0")}).allocate(N1, [c["a"], c["b"]])
    assert out is None  # 2 free devices, 3 wanted
    out = allocator(sc).allocate(N1, [c["a"], c["b"]])
    assert devices(out) == [[("r", "g0")], [("r", "g1"), ("r", "g2")]]


def test_all_mode_takes_every_matching_device_and_fails_if_one_is_taken() -> None:
    sc, c = setup(*SLICES, claim("all", "- {name: r, exactly: {deviceClassName: big-gpu, allocationMode: All}}"))
    assert devices(allocator(sc).allocate(N1, [c["all"]])) == [[("r", "g1"), ("r", "g2")]]
    assert allocator(sc, {("gpu.example.com", "n1", "g2")}).allocate(N1, [c["all"]]) is None
    assert allocator(sc).allocate(N2, [c["all"]]) is None  # no matching device: nothing to take


def test_request_selectors_and_class_selectors_both_apply() -> None:
    sel = "- name: r\n  exactly:\n    deviceClassName: gpu\n    selectors:\n" \
          "    - cel: {expression: 'device.attributes[\"gpu.example.com\"].pcieRoot == \"p1\"'}\n"
    sc, c = setup(*SLICES, claim("p1", sel))
    assert devices(allocator(sc).allocate(N1, [c["p1"]])) == [[("r", "g1")]]


def test_first_available_prefers_earlier_subrequests_and_falls_back() -> None:
    req = """\
    - name: r
      firstAvailable:
      - {name: two-big, deviceClassName: big-gpu, count: 2}
      - {name: one, deviceClassName: gpu}
    """
    sc, c = setup(*SLICES, claim("fa", req))
    assert devices(allocator(sc).allocate(N1, [c["fa"]])) == [[("r/two-big", "g1"), ("r/two-big", "g2")]]
    assert devices(allocator(sc).allocate(N2, [c["fa"]])) == [[("r/one", "g0")]]


def test_match_attribute_backtracks_to_a_pair_on_one_root() -> None:
    sc, c = setup(*SLICES, claim("pair", "- {name: r, exactly: {deviceClassName: gpu, count: 2}}",
                                 "- {matchAttribute: gpu.example.com/pcieRoot}"))
    # g0 (p0) is tried first; no second p0 device exists, so the search moves on to g1+g2 (p1).
    assert devices(allocator(sc).allocate(N1, [c["pair"]])) == [[("r", "g1"), ("r", "g2")]]
    sc2, c2 = setup(gpu_slice("n1", ("g0", "p0", "1Gi"), ("g1", "p1", "1Gi")),
                    claim("pair", "- {name: r, exactly: {deviceClassName: gpu, count: 2}}",
                          "- {matchAttribute: gpu.example.com/pcieRoot}"))
    assert allocator(sc2).allocate(N1, [c2["pair"]]) is None


def test_admin_access_may_use_an_allocated_device(monkeypatch: pytest.MonkeyPatch) -> None:
    ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {resource.kubernetes.io/admin-access: 'true'}}"
    sc, c = setup(ns, gpu_slice("n2", ("g0", "p0", "1Gi")),
                  claim("admin", "- {name: r, exactly: {deviceClassName: gpu, adminAccess: true}}"))
    out = allocator(sc, {("gpu.example.com", "n2", "g0")}).allocate(N2, [c["admin"]])
    assert devices(out) == [[("r", "g0")]] and out[0].results[0].admin_access is True


def test_node_selector_and_all_nodes_slices() -> None:
    zone_slice = gpu_slice("n1", ("z0", "p0", "1Gi"), name="zone-a").replace(
        "  nodeName: n1\n", "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                            "      - {key: zone, operator: In, values: [a]}\n").replace("name: n1,", "name: zone-a,")
    sc, c = setup(zone_slice, claim("one", "- {name: r, exactly: {deviceClassName: gpu}}"))
    out = allocator(sc).allocate(N1, [c["one"]])
    assert devices(out) == [[("r", "z0")]]
    assert out[0].node_selector.node_selector_terms[0].match_expressions[0].key == "zone"
    assert allocator(sc).allocate(N2, [c["one"]]) is None
    everywhere = zone_slice.replace("  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n"
                                    "      - {key: zone, operator: In, values: [a]}\n", "  allNodes: true\n")
    sc, c = setup(everywhere, claim("one", "- {name: r, exactly: {deviceClassName: gpu}}"))
    out = allocator(sc).allocate(N2, [c["one"]])
    assert devices(out) == [[("r", "z0")]] and out[0].node_selector is None


def test_incomplete_pool_is_skipped_and_all_mode_refuses_it() -> None:
    part = gpu_slice("n1", ("g0", "p0", "1Gi")).replace("resourceSliceCount: 1", "resourceSliceCount: 2")
    sc, c = setup(part, claim("one", "- {name: r, exactly: {deviceClassName: gpu}}"),
                  claim("all", "- {name: r, exactly: {deviceClassName: gpu, allocationMode: All}}"))
    assert allocator(sc).allocate(N1, [c["one"]]) is None
    with pytest.raises(AllocationError, match="asks for all devices, but resource pool gpu.example.com/n1 is "
                                              "currently being updated"):
        allocator(sc).allocate(N1, [c["all"]])


def test_cel_runtime_error_is_an_error_not_a_mismatch() -> None:
    sel = "- name: r\n  exactly:\n    deviceClassName: gpu\n    selectors:\n" \
          "    - cel: {expression: 'device.attributes[\"other.org\"].x == 1'}\n"
    sc, c = setup(*SLICES, claim("bad", sel))
    with pytest.raises(AllocationError, match=r"claim default/bad: selector #0: CEL runtime error: no such key"):
        allocator(sc).allocate(N1, [c["bad"]])
