"""The claims controllers make from templates are counted before any is built.

A StatefulSet's volumeClaimTemplates and a pod template's ResourceClaimTemplate references
multiply by the pods: within the pod limit they can still be millions of claims. The loader
counts them (pods x templates) from the manifests and refuses, naming the document, the field,
the limit and how to raise it; under an address-space limit the refusal (not a MemoryError)
proves the claims were never built.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.loader.limits import SETTINGS_HINTS, Limits

ROOT = Path(__file__).resolve().parents[3]
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi}}"
LIMITS = Limits(max_nodes=10, max_pods=100, max_claims=50, hints=SETTINGS_HINTS)


def stateful_set(replicas: int, templates: int, name: str = "db") -> str:
    vct = "".join(f"  - metadata: {{name: v{i}}}\n    spec: {{accessModes: [ReadWriteOnce], "
                  "resources: {requests: {storage: 1Gi}}}\n" for i in range(templates))
    return (f"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: {name}}}\nspec:\n"
            f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: {name}}}}}\n"
            f"  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec: {containers: [{name: c, image: pause}]}\n"
            f"  volumeClaimTemplates:\n{vct}")


def gpu_deployment(replicas: int, claims: int) -> str:
    rc = ", ".join(f"{{name: g{i}, resourceClaimTemplateName: one-gpu}}" for i in range(claims))
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: trainer, namespace: ml}}
        spec:
          replicas: {replicas}
          selector: {{matchLabels: {{app: trainer}}}}
          template:
            metadata: {{labels: {{app: trainer}}}}
            spec:
              resourceClaims: [{rc}]
              containers: [{{name: c, image: pause}}]""")


def refused(text: str, limits: Limits = LIMITS) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, source="s.yaml", limits=limits)
    return str(info.value)


def test_statefulset_claims_over_the_limit_are_refused_naming_the_templates():
    message = refused(f"{NODE}\n---\n{stateful_set(20, 3)}")
    assert message == ("s.yaml: document 2 (StatefulSet default/db): spec.volumeClaimTemplates: too many "
                       "claims: this StatefulSet would create 60 PersistentVolumeClaims (20 pods x 3 "
                       "volumeClaimTemplates); the limit is 50 (raise it with the PLAYGROUND_MAX_CLAIMS "
                       "setting)")


def test_resource_claims_from_a_template_over_the_limit_are_refused():
    message = refused(f"{NODE}\n---\n{gpu_deployment(30, 2)}")
    assert message == ("s.yaml: document 2 (Deployment ml/trainer): spec.template.spec.resourceClaims: too "
                       "many claims: this Deployment would create 60 ResourceClaims (30 pods x 2 claims "
                       "from a ResourceClaimTemplate); the limit is 50 (raise it with the "
                       "PLAYGROUND_MAX_CLAIMS setting)")


def test_claims_within_the_limit_load_and_the_sum_names_the_largest():
    scenario = load_scenario_text(f"{NODE}\n---\n{stateful_set(10, 5)}", limits=LIMITS)
    assert len(scenario.pods) == 10 and len(scenario.storage.pvcs) == 50
    message = refused(f"{NODE}\n---\n{stateful_set(10, 2, 'a')}\n---\n{stateful_set(10, 4, 'b')}")
    assert ("document 3 (StatefulSet default/b): spec.volumeClaimTemplates: too many claims: this "
            "StatefulSet would create 40 PersistentVolumeClaims (10 pods x 4 volumeClaimTemplates), 60 "
            "claims in the scenario; the limit is 50") in message


def test_the_command_line_names_its_flag():
    path = ROOT / "tests" / "fixtures" / "kubectl-storage-gpu.yaml"
    proc = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(path), "--max-claims", "4"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "too many claims" in proc.stderr and "(raise it with --max-claims)" in proc.stderr


MEASURE = """
import resource, sys
sys.argv = ["scheduler_core", "simulate", sys.argv[1], "--seed", "1"]
from scheduler_core.__main__ import main
import scheduler_core.simulation  # everything the command imports, before the limit
with open("/proc/self/status") as fh:
    vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + 100 * 1024 * 1024, resource.RLIM_INFINITY))
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_two_million_claims_are_refused_within_100_mb_of_address_space(tmp_path):
    """100,000 replicas (within the command line's pod limit) x 20 volumeClaimTemplates: two million
    claims, gigabytes if built. The CLI process gets its address space so far plus 100 MB; the
    located refusal (not a MemoryError) proves no claim and no pod was built."""
    path = tmp_path / "big.yaml"
    path.write_text(f"{NODE}\n---\n{stateful_set(100_000, 20)}")
    result = subprocess.run([sys.executable, "-c", MEASURE, str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert ("document 2 (StatefulSet default/db): spec.volumeClaimTemplates: too many claims: this "
            "StatefulSet would create 2,000,000 PersistentVolumeClaims (100,000 pods x 20 "
            "volumeClaimTemplates); the limit is 150,000 (raise it with --max-claims)") in result.stderr
    assert "MemoryError" not in result.stderr


GPU_OBJECTS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
"""


def test_scaling_a_deployment_at_run_time_counts_its_template_claims_first():
    from scheduler_core.simulation import ActionError, Simulation

    sim = Simulation(load_scenario_text(f"{NODE}\n---\n{GPU_OBJECTS}---\n{gpu_deployment(2, 2)}", limits=LIMITS),
                     seed=0)
    sim.run()
    claims = len(sim.scheduler.cluster.resource_claims)
    assert claims == 4
    scale = {"action": "scaleDeployment", "name": "trainer", "namespace": "ml"}
    with pytest.raises(ActionError) as info:
        sim.apply_manifest_action({**scale, "replicas": 26}, index=0, limits=LIMITS)
    assert str(info.value) == ("replicas: too many claims (52: 48 made from the pod template's claim templates); "
                               "the limit is 50 (raise it with the PLAYGROUND_MAX_CLAIMS setting)")
    assert len(sim.scheduler.cluster.pods) == 2 and len(sim.scheduler.cluster.resource_claims) == claims
    sim.apply_manifest_action({**scale, "replicas": 25}, index=1, limits=LIMITS)
    sim.run()
    assert len(sim.scheduler.cluster.resource_claims) == 50
