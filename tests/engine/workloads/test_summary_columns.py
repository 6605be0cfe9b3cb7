"""The load summary an engine keeps (one entry per pod of a dump) is pickled as four columns and
read back as the same entries, with the strings it interns shared (controllers/workloads/summary.py)."""

from __future__ import annotations

import pickle

from scheduler_core.controllers.workloads.summary import (
    CREATED,
    DROPPED,
    KEPT,
    ScaleTarget,
    SummaryEntry,
    WorkloadSummary,
)
from scheduler_core.loader import load_scenario_text


def _summary(pods: int) -> WorkloadSummary:
    s = WorkloadSummary(source_format="kubectl-list")
    s.add(DROPPED, "Deployment", "shop/web", "expanded (Deployments are expanded, not kept)")
    s.add(CREATED, "ReplicaSet", "shop/web-5d8f", "by Deployment shop/web")
    for i in range(pods):
        # Each document's own copies of the strings, as a loader reads them.
        s.add(KEPT, "".join(["P", "od"]), f"shop/web-{i}", "".join(["as ", "given"]))
    s.scale_targets["shop/web"] = ScaleTarget("shop", "web", "web-5d8f", "uid-1", {"spec": {}})
    return s


def test_a_summary_reads_back_equal_with_its_entries_typed() -> None:
    s = _summary(50)
    back = pickle.loads(pickle.dumps(s))
    assert back == s and back.entries == s.entries and back.scale_targets == s.scale_targets
    assert all(type(e) is SummaryEntry for e in back.entries)
    assert back.entries[5].name == "shop/web-3" and back.entries[5].outcome == KEPT
    assert back.as_dict() == s.as_dict() and back.lines() == s.lines()
    assert pickle.loads(pickle.dumps(WorkloadSummary())) == WorkloadSummary()


def test_repeated_strings_are_one_object_written_once() -> None:
    s = _summary(2000)
    kinds = {id(e.kind) for e in s.entries[2:]}
    reasons = {id(e.reason) for e in s.entries[2:]}
    assert len(kinds) == 1 and len(reasons) == 1
    back = pickle.loads(pickle.dumps(s))
    assert len({id(e.kind) for e in back.entries[2:]}) == 1
    # An entry costs its name and a few memo references, not an object's state with its keys.
    per_entry = (len(pickle.dumps(_summary(2000))) - len(pickle.dumps(_summary(1000)))) / 1000
    assert per_entry < 30, per_entry


def test_a_pods_summary_name_is_its_key() -> None:
    text = "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n"
                   "  containers: [{name: c, image: x}]\n" for i in range(3))
    sc = load_scenario_text(text, source="s.yaml")
    names = {e.name: e.name for e in sc.load_summary.entries if e.kind == "Pod"}
    assert [names[p.key] is p.key for p in sc.pods] == [True, True, True]


def test_kept_objects_noted_in_one_call_are_the_entries_add_makes():
    from scheduler_core.controllers.workloads.summary import KEPT, SummaryEntry, WorkloadSummary

    pairs = [("Node", "n1"), ("Pod", "default/" + "p" + str(1)), ("ReplicaSet", "ns/rs")]
    one, each = WorkloadSummary(), WorkloadSummary()
    one.add_kept(pairs)
    for kind, name in pairs:
        each.add(KEPT, kind, name, "as given")
    assert one.entries == each.entries
    assert all(type(e) is SummaryEntry for e in one.entries)
    # Interned: a pod's entry name is the very string its key is.
    assert one.entries[1].name is each.entries[1].name
