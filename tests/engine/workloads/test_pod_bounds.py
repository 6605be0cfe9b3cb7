"""The pod limit counts what workload controllers will create before any pod is built.

A Deployment with `replicas: 1000000000` is refused from its manifest alone, naming the
document, the field, the limit and how to raise it; under an address-space limit the refusal
(not a MemoryError) proves the load never built the pods. Workloads within the limit still load,
and several that only together pass it are refused naming the largest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.loader.limits import CLI_HINTS, SETTINGS_HINTS, Limits

ROOT = Path(__file__).resolve().parents[3]
BILLION = 1_000_000_000

TEMPLATE = """
  template:
    metadata: {labels: {app: NAME}}
    spec: {containers: [{name: c, image: pause}]}
"""


def workload(kind: str, name: str, spec: str, api: str = "apps/v1", selector: bool = True) -> str:
    sel = f"  selector: {{matchLabels: {{app: {name}}}}}\n" if selector else ""
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}}}\nspec:\n{spec}{sel}"
            + textwrap.dedent(TEMPLATE).replace("NAME", name).replace("\ntemplate", "\n  template")
            .replace("\n  metadata", "\n    metadata").replace("\n  spec", "\n    spec").lstrip("\n"))


def deployment(name: str, replicas: int, kind: str = "Deployment") -> str:
    return workload(kind, name, f"  replicas: {replicas}\n")


def nodes(n: int, taint_from: int | None = None) -> str:
    docs = []
    for i in range(n):
        taints = ("\nspec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}"
                  if taint_from is not None and i >= taint_from else "")
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}{taints}\n"
                    "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}")
    return "\n---\n".join(docs)


def join(*docs: str) -> str:
    return "\n---\n".join(docs)


def refused(text: str, limits: Limits) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, source="s.yaml", limits=limits)
    return str(info.value)


SETTINGS = Limits(max_nodes=100, max_pods=50, hints=SETTINGS_HINTS)


@pytest.mark.parametrize(("doc", "where", "created"), [
    (deployment("web", BILLION), "document 2 (Deployment default/web): spec.replicas",
     f"Deployment would create {BILLION:,} pods"),
    (deployment("rs", BILLION, "ReplicaSet"), "document 2 (ReplicaSet default/rs): spec.replicas",
     f"ReplicaSet would create {BILLION:,} pods"),
    (deployment("db", BILLION, "StatefulSet"), "document 2 (StatefulSet default/db): spec.replicas",
     f"StatefulSet would create {BILLION:,} pods"),
    (workload("Job", "batch", f"  parallelism: {BILLION}\n", api="batch/v1", selector=False),
     "document 2 (Job default/batch): spec.parallelism", f"Job would create {BILLION:,} pods"),
    (workload("Job", "idx", f"  parallelism: {BILLION}\n  completions: 60\n", api="batch/v1",
              selector=False), "document 2 (Job default/idx): spec.completions",
     f"Job would create 60 pods (parallelism {BILLION:,}, completions 60)"),
], ids=["deployment", "replicaset", "statefulset", "job-parallelism", "job-completions"])
def test_a_workload_over_the_pod_limit_is_refused_before_its_pods_are_built(doc, where, created):
    message = refused(join(nodes(1), doc), SETTINGS)
    assert message == (f"s.yaml: {where}: too many pods: this {created}; the limit is 50 (raise "
                       "it with the PLAYGROUND_MAX_PODS setting)")


def test_a_daemonset_counts_the_nodes_it_will_run_on():
    # 80 nodes: the upper bound (one pod per node) passes 50, but only 40 nodes are eligible.
    ds = workload("DaemonSet", "agent", "")
    scenario = load_scenario_text(join(nodes(80, taint_from=40), ds), limits=SETTINGS)
    assert len(scenario.pods) == 40
    message = refused(join(nodes(80, taint_from=60), ds), SETTINGS)
    assert ("document 81 (DaemonSet default/agent): spec.template: too many pods: this DaemonSet "
            "would create 60 pods (one per eligible node, 60 of 80 nodes eligible); the limit is 50"
            ) in message


def test_workloads_within_the_limit_load_and_existing_pods_are_not_counted_twice():
    scenario = load_scenario_text(join(nodes(1), deployment("web", 50)), limits=SETTINGS)
    assert len(scenario.pods) == 50
    assert "would create 51 pods" in refused(join(nodes(1), deployment("web", 51)), SETTINGS)
    # A ReplicaSet that already owns 30 of its 50 pods creates 20: 50 in all, within the limit.
    owned = [f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: rs-{i}\n  labels: {{app: rs}}\n"
             "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1, "
             "controller: true}]\nspec: {containers: [{name: c, image: pause}]}" for i in range(30)]
    scenario = load_scenario_text(join(nodes(1), deployment("rs", 50, "ReplicaSet"), *owned),
                                  limits=SETTINGS)
    assert len(scenario.pods) == 50


def test_when_only_the_sum_passes_the_limit_the_largest_workload_is_named():
    text = join(nodes(1), deployment("a", 20), deployment("b", 25), deployment("c", 10))
    message = refused(text, SETTINGS)
    assert ("document 3 (Deployment default/b): spec.replicas: too many pods: this Deployment "
            "would create 25 pods, 55 in the scenario; the limit is 50") in message
    # Given pods and a timeline's additions count too.
    pods = [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec: {{containers: [{{name: c, image: x}}]}}"
            for i in range(10)]
    assert "would create 45 pods, 55 in the scenario" in refused(
        join(nodes(1), deployment("a", 45), *pods), SETTINGS)


def test_a_workload_inside_a_list_is_located_by_its_item():
    item = textwrap.indent(deployment("web", BILLION), "  ").replace("  apiVersion", "- apiVersion", 1)
    message = refused(join(nodes(1), "apiVersion: v1\nkind: List\nitems:\n" + item), SETTINGS)
    assert "document 2 (Deployment default/web): items[0].spec.replicas: too many pods" in message


def test_a_timeline_scale_to_a_billion_is_refused_from_its_number():
    timeline = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                "- {at: 1, action: addPod, pod: {metadata: {name: p}, spec: {containers: [{name: c, image: x}]}}}\n"
                f"- {{at: 2, action: scaleDeployment, name: web, replicas: {BILLION}}}\n")
    message = refused(join(nodes(1), deployment("web", 1), timeline), SETTINGS)
    assert message == ("s.yaml: document 3 (Timeline): actions[1].replicas: too many pods "
                       f"({BILLION + 2:,}); the limit is 50 (raise it with the PLAYGROUND_MAX_PODS setting)")


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
@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet", "DaemonSet"])
def test_the_command_line_refuses_a_billion_within_100_mb_of_address_space(tmp_path, kind):
    """The CLI process gets its address space so far plus 100 MB: building even a fraction of
    the pods would end in MemoryError; the located refusal proves none were built."""
    if kind == "DaemonSet":  # a billion nodes cannot be written; 5,000 nodes x 35 DaemonSets can
        doc = join(nodes(5000), *(workload("DaemonSet", f"d{i}", "") for i in range(35)))
        expect = ("document 5001 (DaemonSet default/d0): spec.template: too many pods: this "
                  "DaemonSet would create 5,000 pods (one per eligible node, 5,000 of 5,000 nodes "
                  "eligible), at least 155,000 in the scenario; the limit is 150,000")
    else:
        doc = join(nodes(1), deployment("web", BILLION, kind))
        expect = (f"document 2 ({kind} default/web): spec.replicas: too many pods: this {kind} "
                  f"would create {BILLION:,} pods; the limit is 150,000 (raise it with --max-pods)")
    path = tmp_path / "big.yaml"
    path.write_text(doc)
    result = subprocess.run([sys.executable, "-c", MEASURE, str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert expect in result.stderr
    assert "MemoryError" not in result.stderr


def test_the_cli_limit_hint_names_the_flag():
    message = refused(join(nodes(1), deployment("web", 200_001)), Limits(max_pods=200_000, hints=CLI_HINTS))
    assert message.endswith("the limit is 200,000 (raise it with --max-pods)")




def test_scaling_one_deployment_twice_counts_its_largest_scale_once():
    timeline = ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
                "- {at: 1, action: scaleDeployment, name: web, replicas: 30}\n"
                "- {at: 2, action: scaleDeployment, name: web, replicas: 5}\n"
                "- {at: 3, action: scaleDeployment, name: web, replicas: 30}\n")
    scenario = load_scenario_text(join(nodes(1), deployment("web", 10), timeline), limits=SETTINGS)
    assert len(scenario.timeline) == 3  # 10 + 30 <= 50, where a sum of the scales (70) would refuse
    assert "would create 21 pods, 51 in the scenario" in refused(join(nodes(1), deployment("web", 21), timeline), SETTINGS)
