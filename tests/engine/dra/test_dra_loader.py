"""resource.k8s.io/v1 objects through the loader: accepted with defaults, refused with a located
error (document, kind/name, field, why) when malformed, and written back by the exporter."""

from __future__ import annotations

import textwrap

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.export import dump_scenario
from scheduler_core.loader import load_scenario_text

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""
NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: '8', memory: 32Gi}}
"""
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      index: {int: 0}
      nvlink: {bool: true}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 40Gi}
"""
TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'}
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: big, deviceClassName: gpu.example.com, count: 2}
      - {name: small, deviceClassName: gpu.example.com}
    constraints:
    - {requests: [gpu], matchAttribute: gpu.example.com/model}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: shared, resourceClaimName: shared}
  containers:
  - name: app
    image: cuda
    resources:
      claims: [{name: gpu}, {name: shared}]
"""


def load(*docs: str):
    return load_scenario_text("\n---\n".join(textwrap.dedent(d) for d in docs), source="dra.yaml")


def refusal(*docs: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(*docs)
    return info.value


def test_objects_are_accepted_with_defaults() -> None:
    sc = load(CLASS, NODE, SLICE, TEMPLATE, CLAIM, POD)
    assert [c.name for c in sc.device_classes] == ["gpu.example.com"]
    (s,) = sc.resource_slices
    dev = s.devices[0]
    assert (s.driver, s.pool_name, s.node_name) == ("gpu.example.com", "n1", "n1")
    assert {k: (a.kind, a.value) for k, a in dev.attributes.items()} == {
        "model": ("string", "a100"), "index": ("int", 0), "nvlink": ("bool", True),
        "driverVersion": ("version", "1.2.3")}
    assert dev.capacity["memory"] == 40 * 2 ** 30
    (t,) = sc.resource_claim_templates
    ex = t.spec.requests[0].exactly
    assert (ex.allocation_mode, ex.count) == ("ExactCount", 1)  # API defaults
    (c,) = sc.resource_claims
    assert [s.name for s in c.spec.requests[0].first_available] == ["big", "small"]
    assert c.spec.constraints[0].match_attribute == "gpu.example.com/model"
    (p,) = sc.pods
    assert [(rc.name, rc.resource_claim_name, rc.resource_claim_template_name) for rc in p.resource_claims] == [
        ("gpu", None, "one-gpu"), ("shared", "shared", None)]
    assert p.containers[0].claims == [("gpu", ""), ("shared", "")]
    assert sc.warnings == []


def test_export_round_trip() -> None:
    sc = load(CLASS, NODE, SLICE, TEMPLATE, CLAIM, POD)
    again = load_scenario_text(dump_scenario(sc))
    assert again.device_classes == sc.device_classes
    assert again.resource_slices == sc.resource_slices
    assert again.resource_claims == sc.resource_claims
    assert again.resource_claim_templates == sc.resource_claim_templates
    assert again.pods[0].resource_claims == sc.pods[0].resource_claims
    assert again.pods[0].containers == sc.pods[0].containers


# (documents, index of the refused document, kind, field, fragment of the reason)
REFUSALS = [
    pytest.param([CLASS.replace('device.driver == "gpu.example.com"', 'device.driver == ')], 1,
                 "DeviceClass", "spec.selectors[0].cel.expression", "compilation failed: Syntax error",
                 id="cel-syntax-error-in-class"),
    pytest.param([CLASS, TEMPLATE.replace(">= 0", ">= 0 &&")], 2, "ResourceClaimTemplate",
                 "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression", "compilation failed",
                 id="cel-syntax-error-in-template"),
    # A DeviceClass the scenario lacks is accepted (as the API server does): test_dra_missing_class.py
    pytest.param([SLICE.replace("{value: 40Gi}", "{value: -1Gi}")], 1, "ResourceSlice",
                 "spec.devices[0].capacity.memory.value", "must be greater than or equal to 0",
                 id="negative-capacity"),
    pytest.param([SLICE.replace("{string: a100}", "{string: a100, int: 3}")], 1, "ResourceSlice",
                 "spec.devices[0].attributes.model", "exactly one value", id="two-attribute-values"),
    pytest.param([SLICE.replace("{version: 1.2.3}", "{version: v1}")], 1, "ResourceSlice",
                 "spec.devices[0].attributes.driverVersion.version", "semver", id="bad-version"),
    pytest.param([SLICE.replace("  nodeName: n1\n", "  nodeName: n1\n  allNodes: true\n")], 1, "ResourceSlice",
                 "spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`", id="two-node-choices"),
    pytest.param([SLICE.replace("resourceSliceCount: 1", "resourceSliceCount: 0")], 1, "ResourceSlice",
                 "spec.pool.resourceSliceCount", "greater than zero", id="zero-slice-count"),
    pytest.param([SLICE.replace("  driver: gpu.example.com\n", "  driver: gpu.example.com\n  drvier: x\n")], 1,
                 "ResourceSlice", "spec.drvier", 'did you mean "driver"', id="unknown-field-did-you-mean"),
    pytest.param([CLASS, TEMPLATE.replace("deviceClassName: gpu.example.com",
                                          "deviceClassName: gpu.example.com\n          allocationMode: Some")],
                 2, "ResourceClaimTemplate", "spec.spec.devices.requests[0].exactly.allocationMode",
                 'Unsupported value: "Some"', id="bad-allocation-mode"),
    pytest.param([CLASS, TEMPLATE.replace("deviceClassName: gpu.example.com",
                                          "deviceClassName: gpu.example.com\n          allocationMode: All\n"
                                          "          count: 2")],
                 2, "ResourceClaimTemplate", "spec.spec.devices.requests[0].exactly.count",
                 "must not be specified when allocationMode is 'All'", id="count-with-all"),
    pytest.param([CLASS, CLAIM.replace("requests: [gpu]", "requests: [cpu]")], 2, "ResourceClaim",
                 "spec.devices.constraints[0].requests[0]", "must be the name of a request", id="constraint-request"),
    pytest.param([CLASS, CLAIM.replace("gpu.example.com/model", "model")], 2, "ResourceClaim",
                 "spec.devices.constraints[0].matchAttribute", "fully qualified", id="unqualified-match-attribute"),
    pytest.param([CLASS, TEMPLATE.replace("exactly:\n          deviceClassName: gpu.example.com",
                                          "exactly:\n          deviceClassName: gpu.example.com\n"
                                          "          adminAccess: true")],
                 2, "ResourceClaimTemplate", "spec.spec.devices.requests[0].exactly.adminAccess",
                 "resource.kubernetes.io/admin-access", id="admin-access-needs-namespace-label"),
    pytest.param([NODE, POD.replace("claims: [{name: gpu}, {name: shared}]", "claims: [{name: gpus}]")], 2, "Pod",
                 "spec.containers[0].resources.claims[0].name", "must be one of the names in pod.spec.resourceClaims",
                 id="container-claim-not-in-pod"),
    pytest.param([NODE, POD.replace("{name: gpu, resourceClaimTemplateName: one-gpu}",
                                    "{name: gpu, resourceClaimTemplateName: one-gpu, resourceClaimName: x}")],
                 2, "Pod", "spec.resourceClaims[0]", "must specify one of", id="pod-claim-two-sources"),
]


@pytest.mark.parametrize("docs,index,kind,field,reason", REFUSALS)
def test_bad_documents_are_refused_with_a_located_error(docs, index, kind, field, reason) -> None:
    e = refusal(*docs)
    assert (e.document, e.kind, e.field) == (index, kind, field), str(e)
    assert reason in str(e), str(e)
    assert str(e).startswith("dra.yaml: document")


def test_admin_access_in_a_labelled_namespace_is_accepted() -> None:
    ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ops, labels: {resource.kubernetes.io/admin-access: 'true'}}"
    tpl = TEMPLATE.replace("metadata: {name: one-gpu}", "metadata: {name: one-gpu, namespace: ops}").replace(
        "exactly:\n          deviceClassName: gpu.example.com",
        "exactly:\n          deviceClassName: gpu.example.com\n          adminAccess: true")
    sc = load(ns, CLASS, tpl)
    assert sc.resource_claim_templates[0].spec.requests[0].exactly.admin_access is True


def test_a_claim_naming_a_missing_claim_or_template_is_accepted() -> None:
    """The apiserver accepts such pods; DynamicResources' PreEnqueue keeps them waiting."""
    sc = load(NODE, POD)
    assert len(sc.pods) == 1


def test_cluster_dump_pod_claim_statuses_are_read() -> None:
    dumped = POD.replace("metadata: {name: train}", "metadata: {name: train, uid: abc, resourceVersion: '7'}") + \
        "status:\n  phase: Pending\n  resourceClaimStatuses:\n  - {name: gpu, resourceClaimName: train-gpu-x7k2p}\n"
    sc = load(CLASS, NODE, dumped)
    assert sc.pods[0].resource_claim_statuses == {"gpu": "train-gpu-x7k2p"}
