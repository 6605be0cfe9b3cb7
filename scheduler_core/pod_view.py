"""The view's pod entries, re-described only for the pods whose described state changed.

A web run records the engine's view after every step. At 150,000 pods building a new dict for
every pod took most of a step's cost, while a step changes a handful of pods. `PodViewMemo`
keeps each pod's entry with the values it was built from (its *signature*: a tuple of the
same fields, cheap to build and compare); an entry is rebuilt only when its signature changed,
and the memo says which keys those were, so the caller can diff only them.

The signature lists every input of the entry, so the content is the full build's by
construction (tests/engine/simulation/test_pod_view.py checks it step by step against a full
build); entries are shared between successive views: treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.cluster import ClusterState


@dataclass
class PodViewMemo:
    """One simulation's pod entries between views (the caller keeps it, one per simulation).

    `changed`: after a call of `pods_view`, the keys whose entries differ from the previous
    call's (new pods included); `appended`: whether keys were added at the end of the list
    (pods are never removed from it: a deleted pod keeps its record)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    signatures: list[tuple[Any, ...]] = field(default_factory=list)
    changed: dict[str, int] = field(default_factory=dict)  # key -> position in the list
    appended: bool = False


def _signature(rec: Any, cur: Any, state: str | None, foreign: bool) -> tuple[Any, ...]:
    if cur is None:
        return (rec.status, rec.node, rec.deleted_by, rec.message, rec.owner)
    return (rec.status, rec.node, rec.deleted_by, rec.message, rec.owner, cur.priority, cur.start_time,
            cur.nominated_node_name, state, foreign and cur.scheduler_name)


def _entry(key: str, rec: Any, cur: Any, state: str | None, foreign: bool) -> dict[str, Any]:
    entry = {
        "key": key,
        "status": rec.status,
        "node": rec.node,
        "priority": cur.priority if cur else None,
        "startTime": cur.start_time if cur else None,
        "nominatedNodeName": cur.nominated_node_name if cur else "",
        "deletedBy": rec.deleted_by,
        "message": rec.message if rec.status == "Pending" else None,
        "owner": rec.owner,
        "cache": state,
    }
    if foreign:
        # No profile answers to this name: the informer never hands the pod to this
        # scheduler (another scheduler would), so no cycle and no event explain it.
        entry["schedulerName"] = cur.scheduler_name
    return entry


def pods_view(cs: ClusterState, cache_state: Callable[[str], str | None], profiles: Collection[str],
              memo: PodViewMemo | None = None) -> list[dict[str, Any]]:
    """Every pod's entry in creation order. With `memo`, only pods whose signature changed
    get a new entry (and `memo.changed` names those whose entry differs)."""
    records, current = cs.records, cs.pods
    if memo is None:
        pods = []
        for key in cs.all_pods:
            rec, cur = records[key], current.get(key)
            state = cache_state(key) if cur is not None else None
            foreign = cur is not None and rec.status == "Pending" and cur.scheduler_name not in profiles
            pods.append(_entry(key, rec, cur, state, foreign))
        return pods
    entries, signatures = memo.entries, memo.signatures
    known = len(entries)
    changed: dict[str, int] = {}
    for i, key in enumerate(cs.all_pods):
        rec, cur = records[key], current.get(key)
        if cur is None:
            state, foreign = None, False
        else:
            state = cache_state(key)
            foreign = rec.status == "Pending" and cur.scheduler_name not in profiles
        sig = _signature(rec, cur, state, foreign)
        if i < known:
            if signatures[i] == sig:
                continue
            signatures[i] = sig
            entry = _entry(key, rec, cur, state, foreign)
            if entry != entries[i]:
                entries[i] = entry
                changed[key] = i
        else:
            signatures.append(sig)
            entries.append(_entry(key, rec, cur, state, foreign))
            changed[key] = i
    memo.changed = changed
    memo.appended = len(entries) > known
    return list(entries)
