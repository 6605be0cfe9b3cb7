"""`capacity`: copies of a pod placed one by one by the engine until the first the scheduler
does not bind, with the scheduler's own FailedScheduling message (docs/capacity.md)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from scheduler_core.__main__ import main

NODE = """apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
{spec}status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
"""
TAINTED = "spec:\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n"
RUNNING = """apiVersion: v1
kind: Pod
metadata: {name: running}
spec:
  nodeName: node-a
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "500m"}}}]
"""
SPREAD = """      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
         nodeTaintsPolicy: Honor, labelSelector: {matchLabels: {app: api}}}
"""


def _cluster(tmp_path: Path) -> Path:
    """3 nodes of 4 cpu, node-c tainted NoSchedule, 1 cpu used on node-a by a running pod."""
    docs = [NODE.format(name="node-a", spec=""), NODE.format(name="node-b", spec=""),
            NODE.format(name="node-c", spec=TAINTED), RUNNING]
    path = tmp_path / "cluster.yaml"
    path.write_text("---\n".join(docs))
    return path


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _json(tmp_path: Path, pod: Path, *extra: str) -> dict:
    code, out, err = _main("capacity", str(_cluster(tmp_path)), "--pod", str(pod), "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_seven_fit_and_the_schedulers_message_names_cpu_and_taint(tmp_path: Path) -> None:
    answer = _json(tmp_path, _write(tmp_path, "pod.yaml", POD))
    assert answer["count"] == 7  # 3 on node-a (1 cpu used), 4 on node-b, none on the tainted node
    assert answer["per_node"] == {"node-a": 3, "node-b": 4}
    assert answer["stopped_by"] == "default/web-7"  # named as cluster-capacity names copies
    reason = answer["stop_reason"]
    assert reason.startswith("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")
    assert "preemption: 0/3 nodes are available:" in reason


def test_text_answer_quotes_the_message(tmp_path: Path) -> None:
    code, out, _ = _main("capacity", str(_cluster(tmp_path)), "--pod", str(_write(tmp_path, "p.yaml", POD)))
    assert code == 0
    assert out.splitlines()[0] == "7 copies of default/web fit."
    assert "Stopped by default/web-7: 0/3 nodes are available:" in out
    assert "node-b  4" in out


def test_max_stops_early_without_a_reason(tmp_path: Path) -> None:
    answer = _json(tmp_path, _write(tmp_path, "pod.yaml", POD), "--max", "4")
    assert answer["count"] == 4
    assert sum(answer["per_node"].values()) == 4
    assert answer["stopped_by"] is None and answer["stop_reason"] is None


def test_a_deployment_is_copied_from_its_template(tmp_path: Path) -> None:
    answer = _json(tmp_path, _write(tmp_path, "deploy.yaml", DEPLOYMENT))
    assert answer["pod"] == "shop/api"
    assert answer["count"] == 14  # 500m each: 6 on node-a, 8 on node-b
    assert answer["per_node"] == {"node-a": 6, "node-b": 8}
    assert answer["stopped_by"] == "shop/api-14"


def test_topology_spread_counts_the_copies_already_placed(tmp_path: Path) -> None:
    spread = DEPLOYMENT.replace("      containers:", SPREAD + "      containers:")
    answer = _json(tmp_path, _write(tmp_path, "deploy.yaml", spread))
    # node-a takes 6; node-b may run one ahead of it (maxSkew 1), so 7 there, then the skew stops it.
    assert answer["per_node"] == {"node-a": 6, "node-b": 7}
    assert answer["count"] == 13
    assert "didn't match pod topology spread constraints" in answer["stop_reason"]


def _refused(tmp_path: Path, pod_text: str, *extra: str) -> str:
    code, out, err = _main("capacity", str(_cluster(tmp_path)), "--pod",
                           str(_write(tmp_path, "bad.yaml", pod_text)), *extra)
    assert code == 2
    assert out == ""
    return err


def test_bad_quantity_is_located_in_the_pod_file(tmp_path: Path) -> None:
    err = _refused(tmp_path, POD.replace('cpu: "1"', "cpu: lots"))
    assert "bad.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests.cpu:" in err


def test_bad_deployment_template_field_names_the_template(tmp_path: Path) -> None:
    err = _refused(tmp_path, DEPLOYMENT.replace('cpu: "500m"', "cpu: lots"))
    assert "(Deployment shop/api): spec.template.spec.containers[0].resources.requests.cpu:" in err


def test_other_kinds_several_documents_and_bound_pods_are_refused(tmp_path: Path) -> None:
    assert 'kind: Unsupported value: "Service"' in _refused(
        tmp_path, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    assert "expected exactly one Pod, Deployment or ReplicaSet, found 2 documents" in _refused(
        tmp_path, POD + "---\n" + POD)
    assert "spec.nodeName: Invalid value" in _refused(tmp_path, POD.replace("spec:\n", "spec:\n  nodeName: node-a\n"))
    assert "spec.schedulerName: Unsupported value" in _refused(
        tmp_path, POD.replace("spec:\n", "spec:\n  schedulerName: other\n"))
    assert "--max: must be at least 1" in _refused(tmp_path, POD, "--max", "0")


def test_a_copy_named_like_a_pod_of_the_cluster_is_refused(tmp_path: Path) -> None:
    cluster = _cluster(tmp_path)
    cluster.write_text(cluster.read_text() + "---\n" + RUNNING.replace("name: running", "name: web-0"))
    code, out, err = _main("capacity", str(cluster), "--pod", str(_write(tmp_path, "pod.yaml", POD)))
    assert code == 2 and out == ""
    assert 'pod.yaml: document 1 (Pod default/web): metadata.name: copy default/web-0:' in err
    assert "already exists" in err
