"""`simulate --why-pending`: pending pods grouped by how the scheduler failed them, with counts,
the cycle each group was last tried in and its closest nodes (docs/why-pending.md)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from scheduler_core.__main__ import main
from scheduler_core.questions.why_pending import split_reasons

NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}}}
{spec}status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
"""
TAINTED = "spec:\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n"
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{extra}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def _scenario(tmp_path: Path) -> Path:
    """3 nodes of 4 cpu (node-c tainted); six 2-cpu pods (four fit, two stay pending), two pods
    selecting a pool no node has (requesting no cpu), one gated pod and one naming a claim that does not exist."""
    docs = [NODE.format(name="node-a", spec=""), NODE.format(name="node-b", spec=""),
            NODE.format(name="node-c", spec=TAINTED)]
    docs += [POD.format(name=f"big-{i}", extra="", cpu="2") for i in range(1, 7)]
    docs += [POD.format(name=f"gpu-{i}", extra="  nodeSelector: {pool: gpu}\n", cpu="0") for i in (1, 2)]
    docs.append(POD.format(name="gated", extra="  schedulingGates: [{name: wait}]\n", cpu="100m"))
    docs.append(POD.format(name="vol", cpu="100m",
                           extra="  volumes: [{name: d, persistentVolumeClaim: {claimName: missing}}]\n"))
    path = tmp_path / "cluster.yaml"
    path.write_text("---\n".join(docs))
    return path


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _report(tmp_path: Path) -> tuple[dict, dict]:
    path = _scenario(tmp_path)
    code, out, err = _main("simulate", str(path), "--why-pending")
    assert code == 0, err
    doc = json.loads(out)
    return doc, {g["reason"]: g for g in doc["whyPending"]["groups"]}


def test_groups_their_counts_and_decisive_reasons(tmp_path: Path) -> None:
    doc, groups = _report(tmp_path)
    report = doc["whyPending"]
    pending = [p["name"] for p in doc["pods"] if p["status"] == "Pending"]
    assert report["pending"] == len(pending) == 6
    assert sum(g["pods"] for g in report["groups"]) == 6
    cpu = groups["Insufficient cpu"]  # 2 nodes short of cpu, 1 tainted: cpu is the decisive reason
    assert cpu["pods"] == 2 and cpu["examples"] == ["default/big-5", "default/big-6"]
    assert cpu["plugins"] == ["NodeResourcesFit", "TaintToleration"]
    assert cpu["reasons"] == [{"reason": "node(s) had untolerated taint(s)", "nodes": 1},
                              {"reason": "Insufficient cpu", "nodes": 2}]
    selector = groups["node(s) didn't match Pod's node affinity/selector"]
    assert selector["pods"] == 2 and selector["plugins"] == ["NodeAffinity", "TaintToleration"]
    claim = groups['persistentvolumeclaim "missing" not found']
    assert claim["pods"] == 1 and claim["closestNodes"] == []
    assert claim["preFilter"]["plugin"] == "VolumeRestrictions"
    gated = groups["waiting for its scheduling gates to be removed"]
    assert gated["pods"] == 1 and gated["lastTriedCycle"] is None
    # Largest group first.
    assert [g["pods"] for g in report["groups"]] == sorted((g["pods"] for g in report["groups"]), reverse=True)


def test_last_tried_cycle_is_the_traced_cycle(tmp_path: Path) -> None:
    _, groups = _report(tmp_path)
    code, trace, _ = _main("trace", str(_scenario(tmp_path)))
    assert code == 0
    last: dict[str, int] = {}
    for line in trace.splitlines():
        ev = json.loads(line)
        if ev["type"] == "cycle_started":
            last[ev["pod"]] = ev["cycle"]
    cpu = groups["Insufficient cpu"]
    assert cpu["lastTriedPod"] == "default/big-6"
    assert cpu["lastTriedCycle"] == last["default/big-6"]
    selector = groups["node(s) didn't match Pod's node affinity/selector"]
    assert selector["lastTriedCycle"] == max(last["default/gpu-1"], last["default/gpu-2"])


def test_closest_nodes_are_those_the_fewest_filters_reject(tmp_path: Path) -> None:
    _, groups = _report(tmp_path)
    closest = groups["node(s) didn't match Pod's node affinity/selector"]["closestNodes"]
    # node-a and node-b miss only the selector; the tainted node-c fails two plugins, so comes last.
    assert [c["node"] for c in closest] == ["node-a", "node-b", "node-c"]
    assert closest[0]["rejectedBy"] == ["NodeAffinity"]
    assert sorted(closest[2]["rejectedBy"]) == ["NodeAffinity", "TaintToleration"]


def test_the_rest_of_the_document_is_unchanged(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    _, plain, _ = _main("simulate", str(path))
    _, with_report, _ = _main("simulate", str(path), "--why-pending")
    doc = json.loads(with_report)
    assert "whyPending" not in json.loads(plain)
    del doc["whyPending"]
    assert doc == json.loads(plain)


def test_split_reasons_reads_upstreams_aggregated_text() -> None:
    msg = ("0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 Insufficient cpu. "
           "no new claims to deallocate, preemption: 0/5 nodes are available: 5 No preemption victims found.")
    assert split_reasons(msg) == [(1, "node(s) had untolerated taint(s)"), (4, "Insufficient cpu")]
    assert split_reasons('0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. '
                         'preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.') == [
        (2, "pod has unbound immediate PersistentVolumeClaims")]
    assert split_reasons("running PreBind plugin \"VolumeBinding\": timed out") == [
        (0, "running PreBind plugin \"VolumeBinding\": timed out")]


class _CountingOut(io.StringIO):
    """stdout that counts its write calls: unbuffered (PYTHONUNBUFFERED, common in containers)
    each call is a system call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def write(self, text: str) -> int:
        self.calls += 1
        return super().write(text)


def test_the_answer_is_written_in_one_piece(tmp_path: Path) -> None:
    """json.dump hands the stream one call per token: at 150,000 pods, millions of system calls
    when stdout is unbuffered. The document goes out as one write."""
    out = _CountingOut()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["simulate", str(_scenario(tmp_path)), "--why-pending"])
    assert code == 0
    assert json.loads(out.getvalue())["whyPending"]["groups"]
    assert out.calls == 1
