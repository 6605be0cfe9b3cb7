"""A claim naming a DeviceClass the scenario lacks is loaded, as the API server accepts it
(it checks no references between objects), with a warning that says what the scheduler will
do; the scheduler then keeps each pod using the claim pending with DynamicResources' PreFilter
status, upstream's own words ("request <name>: device class <class> does not exist")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: '8', memory: 32Gi}}
"""
CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
"""
SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}]
"""
TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-tpu}
spec:
  spec:
    devices:
      requests:
      - {name: accel, exactly: {deviceClassName: tpu}}
"""
GOOD_TEMPLATE = TEMPLATE.replace("one-tpu", "one-gpu").replace("deviceClassName: tpu", "deviceClassName: gpu")
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec:
  devices:
    requests:
    - name: accel
      firstAvailable:
      - {name: big, deviceClassName: gpu}
      - {name: small, deviceClassName: fpga}
"""


def pod(name: str, source: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n"
            f"  resourceClaims:\n  - {{name: accel, {source}}}\n"
            "  containers:\n  - name: app\n    image: x\n"
            "    resources: {requests: {cpu: 100m}, claims: [{name: accel}]}\n")


def scenario_text(*docs: str) -> str:
    return "\n---\n".join(docs)


def run(*docs: str) -> dict[str, dict]:
    sim = Simulation(load_scenario_text(scenario_text(*docs)), record_events=True)
    assert sim.run()
    return {p["name"]: p for p in sim.result(True)["pods"]}


def test_a_template_naming_a_missing_class_loads_with_a_warning_saying_what_the_scheduler_does() -> None:
    sc = load_scenario_text(scenario_text(NODE, TEMPLATE, pod("train", "resourceClaimTemplateName: one-tpu")),
                            source="dra.yaml")
    refs = [w for w in sc.warnings if w.category == "reference"]
    assert len(refs) == 1
    w = refs[0]
    assert (w.document, w.kind, w.name, w.field) == (
        2, "ResourceClaimTemplate", "default/one-tpu", "spec.spec.devices.requests[0].exactly.deviceClassName")
    assert 'DeviceClass "tpu" is not in the scenario' in w.reason
    assert '"request accel: device class tpu does not exist"' in w.reason
    assert str(w).startswith("dra.yaml: document 2 (ResourceClaimTemplate default/one-tpu): ")


def test_the_pod_stays_pending_with_the_plugins_message() -> None:
    pods = run(NODE, CLASS, SLICE, TEMPLATE, GOOD_TEMPLATE,
               pod("train", "resourceClaimTemplateName: one-tpu"),
               pod("ok", "resourceClaimTemplateName: one-gpu"))
    assert pods["ok"]["status"] == "Bound"
    assert pods["train"]["status"] == "Pending" and pods["train"]["node"] is None
    assert pods["train"]["message"].startswith(
        "0/1 nodes are available: request accel: device class tpu does not exist.")


def test_a_missing_class_in_a_subrequest_is_named_with_its_request() -> None:
    sc = load_scenario_text(scenario_text(NODE, CLASS, CLAIM), source="dra.yaml")
    [w] = [w for w in sc.warnings if w.category == "reference"]
    assert w.field == "spec.devices.requests[0].firstAvailable[1].deviceClassName"
    pods = run(NODE, CLASS, SLICE, CLAIM, pod("user", "resourceClaimName: shared"))
    assert pods["user"]["status"] == "Pending"
    assert "request accel/small: device class fpga does not exist" in pods["user"]["message"]


def test_no_warning_when_every_class_is_there() -> None:
    sc = load_scenario_text(scenario_text(NODE, CLASS, GOOD_TEMPLATE), source="dra.yaml")
    assert [w for w in sc.warnings if w.category == "reference"] == []


def test_the_command_line_loads_it_and_prints_the_warning(tmp_path: Path) -> None:
    path = tmp_path / "missing-class.yaml"
    path.write_text(scenario_text(NODE, TEMPLATE, pod("train", "resourceClaimTemplateName: one-tpu")))
    done = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "warning:" in done.stderr and "device class tpu does not exist" in done.stderr
    assert '"status": "Pending"' in done.stdout and "request accel: device class tpu does not exist" in done.stdout


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: 3
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      resourceClaims: [{name: accel, resourceClaimTemplateName: nope}]
      containers: [{name: c, image: x, resources: {claims: [{name: accel}]}}]
"""


def test_pods_naming_a_missing_claim_or_template_load_with_one_warning_per_missing_object() -> None:
    sc = load_scenario_text(scenario_text(NODE, DEPLOYMENT, pod("p", "resourceClaimName: gone")), source="dra.yaml")
    refs = [w for w in sc.warnings if w.category == "reference"]
    assert [(w.field, w.more) for w in refs] == [
        ("spec.resourceClaims[0].resourceClaimTemplateName", 2), ("spec.resourceClaims[0].resourceClaimName", 0)]
    assert refs[0].reason.startswith('ResourceClaimTemplate "default/nope" is not in the scenario')
    assert "PreEnqueue: ResourceClaim not created yet" in refs[0].reason
    assert 'PreEnqueue: resourceclaim.resource.k8s.io "gone" not found' in refs[1].reason
