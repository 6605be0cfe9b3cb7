"""The timeline (partials/timeline.html): a scrubber over every step of the run, with markers where
something a learner looks for happened: a FailedScheduling event, a preemption, an eviction, a
cluster change. Going to a step opens it pinned and read-only (?step=), where it can be forked."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from django.db.models import Q

from playground.models import RunEvent

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

MARKERS_PER_KIND = 150
_KINDS = {
    "failed": "FailedScheduling",
    "preemption": "preemption",
    "eviction": "eviction",
    "change": "cluster change",
}


def _label(kind: str, data: dict[str, Any]) -> str:
    pod = str(data.get("object") or data.get("pod") or "")
    if kind == "failed":
        return f"FailedScheduling {pod}"
    if kind == "preemption":
        return f"{pod} preempts on {data.get('chosen')}"
    if kind == "eviction":
        return f"{pod} evicted"
    return f"cluster change: {data.get('action')}"


# The events each kind's markers are taken from, as the database selects them: the first
# MARKERS_PER_KIND of these by sequence number (a preemption that chose no node is among them
# and marks nothing).
_CANDIDATES = {
    "failed": Q(type="k8s_event", data__reason="FailedScheduling"),
    "preemption": Q(type="preemption"),
    "eviction": Q(type="pod_deleted", data__by="TaintManagerEviction"),
    "change": Q(type="cluster_action"),
}


def _candidate_kind(data: dict[str, Any]) -> str | None:
    """Which kind's candidates `data` is among (`_CANDIDATES`, in Python)."""
    kind = data.get("type")
    if kind == "k8s_event":
        return "failed" if data.get("reason") == "FailedScheduling" else None
    if kind == "preemption":
        return "preemption"
    if kind == "pod_deleted":
        return "eviction" if data.get("by") == "TaintManagerEviction" else None
    return "change" if kind == "cluster_action" else None


@dataclass
class _Marks:
    """A run's markers up to event `upto`: per kind, the candidates taken (at most
    MARKERS_PER_KIND) and the (step, label) of those that mark a step."""

    token: str  # a run id can be reused (a test's rolled-back run): never another run's marks
    upto: int
    taken: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_KINDS, 0))
    marks: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: {k: [] for k in _KINDS})

    def add(self, kind: str, step: int, data: dict[str, Any]) -> None:
        if self.taken[kind] >= MARKERS_PER_KIND:
            return
        self.taken[kind] += 1
        if kind != "preemption" or data.get("chosen"):
            self.marks[kind].append((step, _label(kind, data)))

    def full(self) -> bool:
        return all(n >= MARKERS_PER_KIND for n in self.taken.values())


# A run's markers, kept per web process and extended by the events after `upto`: a live run's
# panels are rendered after every step, and its events only grow (rows are never rewritten), so
# each rendering reads the few events its step added (one query; none once every kind is full)
# instead of four scans of the run's whole log.
_kept: OrderedDict[int, _Marks] = OrderedDict()
_kept_lock = threading.Lock()
KEPT_RUNS = 512


def _marks(run: Any) -> _Marks:
    upto = int(run.last_seq)
    with _kept_lock:
        kept = _kept.get(run.pk)
        if kept is not None and kept.token == run.share_token and kept.upto <= upto:
            kept = replace(kept, taken=dict(kept.taken), marks={k: list(v) for k, v in kept.marks.items()})
        else:
            kept = None
    events = RunEvent.objects.filter(run=run, seq__lte=upto)
    if kept is None:
        kept = _Marks(token=run.share_token, upto=upto)
        for kind in _KINDS:
            rows = events.filter(_CANDIDATES[kind]).order_by("seq").values_list("step", "data")[:MARKERS_PER_KIND]
            for step, data in rows:
                kept.add(kind, step, data)
    elif kept.upto < upto and not kept.full():
        wanted = Q()
        for kind in _KINDS:
            if kept.taken[kind] < MARKERS_PER_KIND:
                wanted |= _CANDIDATES[kind]
        for step, data in events.filter(wanted, seq__gt=kept.upto).order_by("seq").values_list("step", "data"):
            kind = _candidate_kind(data)
            if kind is not None:
                kept.add(kind, step, data)
    kept.upto = upto
    with _kept_lock:
        _kept[run.pk] = kept
        _kept.move_to_end(run.pk)
        while len(_kept) > KEPT_RUNS:
            _kept.popitem(last=False)
    return kept


def timeline(screen: Screen) -> dict[str, Any]:
    """The scrubber's range (0..head) and its markers, at most MARKERS_PER_KIND of each kind."""
    run = screen.run
    head = max(int(run.head_step), 1)
    kept = _marks(run)
    markers = [
        {"step": step, "kind": kind, "label": label, "pct": round(step / head * 100, 2)}
        for kind in _KINDS
        for step, label in kept.marks[kind]
    ]
    markers.sort(key=lambda m: m["step"])
    return {
        "head": int(run.head_step),
        "markers": markers,
        "legend": [{"kind": k, "text": t, "count": len(kept.marks[k])} for k, t in _KINDS.items()],
        "steps": sorted({m["step"] for m in markers}),
    }
