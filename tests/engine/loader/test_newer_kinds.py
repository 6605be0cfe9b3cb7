"""Dumps of Kubernetes v1.36/v1.37 clusters load into the v1.35.4 engine with located notes.

Before this, `unsupported kind "PodGroup"` refused a v1.37 cluster's dump outright.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_file
from scheduler_core.loader.newer_kinds import NEWER_CATEGORY, reduce_newer
from tests.engine.loader.helpers import NODE, load, pod

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "kubectl-v137-podgroup.yaml"


def _newer(scenario):
    return [w for w in scenario.warnings if w.category == NEWER_CATEGORY]


def test_v137_dump_loads_with_notes_naming_the_release():
    scenario = load_scenario_file(FIXTURE)
    assert sorted(p.name for p in scenario.pods) == ["trainer-0", "trainer-1"]
    assert len(scenario.nodes) == 2
    notes = {(w.kind, w.field): w for w in _newer(scenario)}
    workload = notes[("Workload", "items[2]")]
    assert "scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in workload.reason
    assert "not simulated" in workload.reason and "v1alpha1" in workload.reason
    assert workload.document == 1 and workload.name == "default/training"
    assert "introduced in Kubernetes v1.37" in notes[("PodGroup", "items[3]")].reason
    group_ref = notes[("Pod", "items[4].spec.schedulingGroup")]
    assert "v1.36" in group_ref.reason and "spec.workloadRef" in group_ref.reason
    assert group_ref.more == 1  # both pods, one note
    declared = notes[("Node", "items[0].status.declaredFeatures")]
    assert "v1.37" in declared.reason and "NodeDeclaredFeatures" in declared.reason
    # A v1 DeviceTaintRule has v1alpha3's fields and meaning: read as v1alpha3, said so.
    rule = notes[("DeviceTaintRule", "items[6].apiVersion")]
    assert "simulated as a resource.k8s.io/v1alpha3 DeviceTaintRule" in rule.reason
    assert [r.name for r in scenario.device_taint_rules] == ["gpu-maintenance"]
    assert scenario.scheduling_workloads == []
    dropped = {(e.kind, e.name) for e in scenario.load_summary.entries if e.outcome == "dropped"}
    assert {("Workload", "default/training"), ("PodGroup", "default/training-workers-0")} <= dropped


def test_every_newer_scheduling_version_is_accepted_never_unsupported():
    for version in ("v1alpha2", "v1alpha3", "v1beta1"):
        for kind in ("Workload", "PodGroup"):
            s = load(NODE, f"apiVersion: scheduling.k8s.io/{version}\nkind: {kind}\n"
                           "metadata: {name: g, namespace: default}\nspec: {}\n")
            (note,) = _newer(s)
            assert note.kind == kind and "introduced in Kubernetes v1.3" in note.reason
    s = load(NODE, "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
                   "metadata: {name: c, namespace: default}\nspec: {}\n")
    assert "v1.37" in _newer(s)[0].reason


def test_a_kind_nobody_serves_is_still_unsupported():
    with pytest.raises(ScenarioError, match='unsupported kind "PodGang"'):
        load(NODE, "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGang\nmetadata: {name: g}\n")


def test_v135_manifests_get_no_newer_notes():
    """declaredFeatures is a v1.35 field too: noted only in a dump that holds something newer."""
    node = NODE + "  declaredFeatures: [GuaranteedQoSPodCPUResize]\n"
    s = load(node, pod())
    assert _newer(s) == []


def test_the_callers_documents_are_not_changed():
    docs = [{"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
         "spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": []}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r"}, "spec": {}},
    ]}]
    before = copy.deepcopy(docs)
    out, notes, _ = reduce_newer(docs, "x.yaml")
    assert docs == before
    assert "schedulingGroup" not in out[0]["items"][0]["spec"]
    assert out[0]["items"][1]["apiVersion"] == "resource.k8s.io/v1alpha3"
    assert len(notes) == 2


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", *args],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def test_cli_loads_a_v137_dump_exit_0_notes_on_stderr():
    done = _cli(str(FIXTURE))
    assert done.returncode == 0, done.stderr
    assert "PodGroup scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in done.stderr
    assert "Workload scheduling.k8s.io/v1beta1 introduced in Kubernetes v1.37" in done.stderr
    assert '"trainer-0"' in done.stdout


def test_cli_gate_notes_name_the_v137_gate():
    done = _cli(str(FIXTURE), "--feature-gates", "GenericWorkload=true,GangScheduling=true")
    assert done.returncode == 0, done.stderr
    assert "note: feature gate GangScheduling: removed in v1.37, folded into GenericWorkload" in done.stderr
    refused = _cli(str(FIXTURE), "--feature-gates", "WorkloadAwarePreemption=true")
    assert refused.returncode != 0
    assert "unrecognized feature gate: WorkloadAwarePreemption" in refused.stderr  # v1.35.4's verdict
    assert "WorkloadAwarePreemption: added in v1.36 and removed in v1.37, folded into GenericWorkload" in refused.stderr


# The loader skips the walk when the YAML text holds none of a few words (`may_hold_newer`);
# these prove an object that needs the walk is never skipped.

def test_a_newer_field_spelled_with_an_escape_is_still_noted():
    """The key is written "sch\\u0065dulingGroup": the word is not in the text as written."""
    s = load(NODE, pod('"sch\\u0065dulingGroup": {podGroupName: g}\n'))
    (note,) = _newer(s)
    assert note.field == "spec.schedulingGroup" and "v1.36" in note.reason


def test_each_newer_kind_and_field_in_plain_text_needs_the_walk():
    from scheduler_core.api.newer_versions import NEWER_FIELDS, NEWER_KINDS
    from scheduler_core.loader.newer_kinds import may_hold_newer

    plain = "\n---\n".join([NODE, pod()])
    assert not may_hold_newer(plain)  # a v1.35 manifest: nothing to walk for
    for k in NEWER_KINDS:
        assert may_hold_newer(plain + f"\n---\napiVersion: {k.api_version}\nkind: {k.kind}\n"), k
    for f in NEWER_FIELDS:
        *_, last = f.path.split(".")
        assert may_hold_newer(plain + f"\n---\nkind: {f.kind}\n{last.removesuffix('[]')}: x\n"), f


def test_given_word_free_text_the_documents_come_back_unwalked():
    docs = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": []}}]
    out, notes, dropped = reduce_newer(docs, "x.yaml", text="kind: Pod\n")
    assert out == docs and out[0] is docs[0] and notes == [] and dropped == []
    _, notes, _ = reduce_newer(docs, "x.yaml", text="schedulingGroup: {}\n")
    assert [n.field for n in notes] == ["spec.schedulingGroup"]
