"""The view's pod entries, re-described only for the pods the engine changed.

A web run records the engine's view after every step. At 150,000 pods building a new dict for
every pod took most of a step's cost, while a step changes a handful of pods. `PodViewMemo`
keeps each pod's entry between views. Once a memo has described every pod, the engine reports
the pods it changes: `ClusterState.touched` where a pod's record or current object changes (the
API server's create, update, delete and bind, the scheduler's assumed node and failure
message), `Cache._touch` where its cache state changes; the next view re-describes only those
and the pods created since, and the memo says which entries differ, so the caller diffs only them.

The content is the full build's: tests/web/services/runs/test_incremental_frames.py compares them after
every step of gallery and randomized runs. Entries are shared between successive views: treat
them as read-only. One memo per simulation: a view with a memo takes the engine's reports.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.apiserver.store.cluster import ClusterState
from scheduler_core.backend.cache.cache import Cache


@dataclass
class PodViewMemo:
    """One simulation's pod entries between views (the caller keeps it, one per simulation).

    `changed`: after a call of `pods_view`, the keys whose entries differ from the previous
    call's (new pods included); `appended`: whether keys were added at the end of the list
    (pods are never removed from it: a deleted pod keeps its record)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)  # key -> position in `entries`
    changed: dict[str, int] = field(default_factory=dict)  # key -> position in the list
    appended: bool = False


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


def pods_view(cs: ClusterState, cache: Cache, profiles: Collection[str],
              memo: PodViewMemo | None = None) -> list[dict[str, Any]]:
    """Every pod's entry in creation order. With `memo`, only pods the engine reported changed
    (or, before it reports, whose signature changed) get a new entry, and `memo.changed` names
    those whose entry differs."""
    if memo is None:
        pods = []
        for key in cs.all_pods:
            rec, cur = cs.records[key], cs.pods.get(key)
            state, foreign = _state(key, rec, cur, cache, profiles)
            pods.append(_entry(key, rec, cur, state, foreign))
        return pods
    entries = memo.entries
    known = len(entries)
    touched_cs, touched_cache = cs.pods_touched, cache.pods_touched
    if known and touched_cs is not None and touched_cache is not None:
        keys = touched_cs | touched_cache
        candidates = sorted(memo.index[k] for k in keys if k in memo.index)
        candidates.extend(range(known, len(cs.all_pods)))
    else:  # the first view: every pod, and from now on the engine reports what it changes
        candidates = range(len(cs.all_pods))
    cs.pods_touched, cache.pods_touched = set(), set()
    changed: dict[str, int] = {}
    for i in candidates:
        _describe(cs, cache, profiles, memo, i, changed)
    memo.changed = changed
    memo.appended = len(entries) > known
    return list(entries)


def _state(key: str, rec: Any, cur: Any, cache: Cache, profiles: Collection[str]) -> tuple[str | None, bool]:
    """The pod's cache state and whether no profile answers to its scheduler name."""
    if cur is None:
        return None, False
    return cache.pod_state(key), rec.status == "Pending" and cur.scheduler_name not in profiles


def _describe(cs: ClusterState, cache: Cache, profiles: Collection[str], memo: PodViewMemo, i: int,
              changed: dict[str, int]) -> None:
    """Bring the memo's entry at position `i` up to date, noting it in `changed` if it differs."""
    key = cs.all_pods[i]
    rec, cur = cs.records[key], cs.pods.get(key)
    state, foreign = _state(key, rec, cur, cache, profiles)
    entry = _entry(key, rec, cur, state, foreign)
    if i < len(memo.entries):
        if entry == memo.entries[i]:
            return
        memo.entries[i] = entry
    else:
        memo.entries.append(entry)
        memo.index[key] = i
    changed[key] = i
