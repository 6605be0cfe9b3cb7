"""A frame's whole (compact) view, put back together from its keyframe and the deltas after it.

Views are cached per process (least recently used out first), keyed by the run's share token
(unique for ever, unlike a primary key in a test database) and step: every
viewer of a run's head asks for the same step, and the step after it is one delta away. Cached
views are shared: callers must not modify them (the presenters copy what they decorate).

The cache is bounded by weight, not by count: a view weighs its nodes plus its pods (the newest
two are kept whatever they weigh). A class of
thirty small runs fits (each page's next view is one delta from the cached one, instead of a
keyframe and its deltas decoded again), while a few 5,000-node views still fill it.

A view put together from a cached view and one delta shares every entry the delta does not
name with that view (`frame_views.apply` copies none), so it weighs only what its delta
brings. Weighed whole, a 150,000-pod run's head and the frame before it (every page and live
update reads both) could not be kept together: each read of the one evicted the other, and
each panel fetch of a Step rebuilt its view from the 37 MB keyframe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from playground import frame_views, keyframe_rule
from playground.models import Run, RunFrame

CACHE_SIZE = 256  # views at most...
CACHE_WEIGHT = 60_000  # ...and at most this many nodes + pods over all of them...
MIN_KEPT = 2  # ...but the newest two views are kept whatever they weigh (a head and the frame before it)

_cache: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
_weights: dict[tuple[str, int], int] = {}
_lock = threading.Lock()
_total = 0


def _weight(view: dict[str, Any]) -> int:
    return 1 + len(view.get("nodes") or ()) + len(view.get("pods") or ())


def _delta_weight(delta: dict[str, Any]) -> int:
    """What a view made from a cached view and `delta` adds to it: the entries the delta names."""
    return 1 + sum(len(delta.get(section) or ()) for section in ("nodes", "pods"))


def _remember(key: tuple[str, int], view: dict[str, Any], weight: int | None = None) -> dict[str, Any]:
    """Keep `view`; `weight`: what it adds to the cached views it shares its entries with
    (default: all of it, `_weight`)."""
    global _total
    with _lock:
        _total -= _weights.pop(key, 0)
        _cache[key] = view
        _cache.move_to_end(key)
        _weights[key] = weight = _weight(view) if weight is None else weight
        _total += weight
        while len(_cache) > MIN_KEPT and (len(_cache) > CACHE_SIZE or _total > CACHE_WEIGHT):
            old, _ = _cache.popitem(last=False)
            weight = _weights.pop(old, 0)
            # The run's other views may share its entries: the next of them out holds them now.
            heir = next((k for k in _cache if k[0] == old[0]), None)
            if heir is not None:  # at most all of the heir's own entries
                whole = _weight(_cache[heir])
                _total -= weight + _weights[heir] - min(whole, weight + _weights[heir])
                _weights[heir] = min(whole, weight + _weights[heir])
            else:
                _total -= weight
    return view


def _cached(key: tuple[str, int]) -> dict[str, Any] | None:
    with _lock:
        view = _cache.get(key)
        if view is not None:
            _cache.move_to_end(key)
        return view


def remember(*, run: Run, step: int, view: dict[str, Any]) -> None:
    """Keep `view`, which the caller has just stored as frame `step` of `run` (the start's frame 0,
    already decoded by the process that stores it): this process's first page of the run then
    reads no stored view (at 5,000 x 150,000 frame 0 is 37 MB of JSON). The caller hands the
    view over: nobody may modify it afterwards."""
    _remember((run.share_token, step), view)


def clear_cache() -> None:
    global _total
    with _lock:
        _cache.clear()
        _weights.clear()
        _total = 0
    _indexes.clear()
    _positions.clear()
    _origins.clear()


# Each view's pod entries by key, for the presenters that look a few pods up (the map's chips,
# a preemption's victims): building it is a pass over every pod (150,000 at the envelope) on
# every Step, so a view made from a cached view and a delta that keeps the pods' order gets
# its index from that view's, a copy with the delta's entries in. Keyed by the view's identity
# (cached views are shared and never modified), holding the view so the identity stays its own.
INDEXES_KEPT = 8


class _PerView:
    """Something derived from a view, for the INDEXES_KEPT newest views it was kept for. Keyed by
    the view's identity (cached views are shared and never modified), holding the view so the
    identity stays its own."""

    def __init__(self) -> None:
        self._kept: OrderedDict[int, tuple[dict[str, Any], Any]] = OrderedDict()

    def keep(self, view: dict[str, Any], value: Any) -> Any:
        with _lock:
            self._kept[id(view)] = (view, value)
            self._kept.move_to_end(id(view))
            while len(self._kept) > INDEXES_KEPT:
                self._kept.popitem(last=False)
        return value

    def get(self, view: dict[str, Any]) -> Any:
        with _lock:
            hit = self._kept.get(id(view))
        return hit[1] if hit is not None and hit[0] is view else None

    def clear(self) -> None:
        with _lock:
            self._kept.clear()


_indexes = _PerView()  # view -> {pod key: pod entry}


def _keep_index(view: dict[str, Any], index: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return _indexes.keep(view, index)


def _index_of(view: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    return _indexes.get(view)


def pods_by_key(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`view`'s pod entries by key (callers only read it)."""
    index = _index_of(view)
    if index is None:
        index = _keep_index(view, {p["key"]: p for p in view.get("pods") or ()})
    return index


# Each view's entries by key -> index (frame_views.positions_of), shared along a run's views
# while their order stays: the next view is then the one before's lists copied with the step's
# changed entries put in place. Keyed by the view's identity, like the indexes above.
_positions = _PerView()  # view -> {section: {key: index}}


def _keep_positions(view: dict[str, Any], positions: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return _positions.keep(view, positions)


def _positions_of(view: dict[str, Any]) -> dict[str, dict[str, int]]:
    found = _positions.get(view)
    if found is not None:
        return found
    return _keep_positions(view, frame_views.positions_of(view))


def _derive_index(before: dict[str, Any], delta: dict[str, Any], view: dict[str, Any]) -> None:
    """Give `view` (`before` with `delta` applied) its pods index from `before`'s, if that one
    was built and the delta kept the pods' order (no pod added or removed); and note what it
    changed of `before`'s pods (`pods_changed_since`)."""
    if "podsOrder" in delta:
        return
    _origins.keep(view, (before, frozenset(delta.get("pods") or ())))
    index = _index_of(before)
    if index is not None:
        index = dict(index)
        index.update(delta.get("pods") or {})
        _keep_index(view, index)


# A view made from a cached view and a delta that kept the pods' order: that view and the keys of
# the pods whose entries the delta replaced (what a presenter keeping a per-view summary of every
# pod, the pods table's grouping, updates instead of summing every pod again).
_origins = _PerView()  # view -> (the view before, keys of the pods the delta replaced)


def pods_changed_since(view: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]] | None:
    """(the view `view` was made from, the keys of the pods whose entries differ) when `view` is
    that view with one delta that kept the pods' order applied; None when not known."""
    return _origins.get(view)


def view_at(*, run: Run, step: int, stored: dict[str, Any] | None = None) -> dict[str, Any]:
    """The view after frame `step` of `run` ({} if there is no such frame). `stored` is that
    frame's stored view when the caller has it already."""
    key = (run.share_token, step)
    view = _cached(key)
    if view is not None:
        return view
    if stored is None:
        stored = RunFrame.objects.filter(run=run, step=step).values_list("view", flat=True).first()
        if stored is None:
            return {}
    if not frame_views.is_delta(stored):
        return _remember(key, stored)
    base = int(stored["delta"])
    before = _cached((run.share_token, base))
    if before is None:  # rebuilt, not kept: the view made from it holds all its entries
        return _remember(key, frame_views.apply(_rebuild(run, base), stored))
    positions = _positions_of(before)
    view = frame_views.apply(before, stored, positions)
    if not any(section + "Order" in stored for section in positions):
        _keep_positions(view, positions)  # the same order: the same places
    _derive_index(before, stored, view)
    return _remember(key, view, _delta_weight(stored))


def _rebuild(run: Run, step: int) -> dict[str, Any]:
    """The view at `step` from the nearest cached view or keyframe at or before it.

    Only the frames after the nearest cached view are read, newest first, and each is decoded
    only when reached: a playing run's viewer asks for a step some frames past the one it saw
    (still cached), and decoding every frame back to the keyframe (a whole 500-node view among
    them) cost more than rendering the page. The chain back to a keyframe is as long as the
    writer made it (`playground.keyframe_rule`: at most KEYFRAME_MAX frames); its deltas are
    applied in one pass over the view (`frame_views.apply_chain`)."""
    floor = _newest_cached_step(run.share_token, step)
    rows = RunFrame.objects.filter(run=run, step__lte=step)
    if floor is not None:
        rows = rows.filter(step__gt=floor)
    chain: list[dict[str, Any]] = []
    view: dict[str, Any] | None = None
    for row_step, stored in (
        rows.order_by("-step").values_list("step", "view")[: keyframe_rule.KEYFRAME_MAX + 1].iterator(chunk_size=8)
    ):
        cached = _cached((run.share_token, row_step))
        if cached is not None:
            view = cached
            break
        if not frame_views.is_delta(stored):
            view = stored
            break
        chain.append(stored)
    if view is None and floor is not None and chain and int(chain[-1]["delta"]) == floor:
        # every frame after the cached floor was read
        view = _cached((run.share_token, floor))
    if view is None:  # no keyframe in reach (an older run's layout, or the floor evicted): walk back further
        return _walk_from_start(run, step)
    chain.reverse()
    return frame_views.apply_chain(view, chain)


def _newest_cached_step(token: str, step: int) -> int | None:
    """The latest step at or before `step` whose view of run `token` is cached."""
    with _lock:
        steps = [s for t, s in _cache if t == token and s <= step]
    return max(steps, default=None)


def _walk_from_start(run: Run, step: int) -> dict[str, Any]:
    view: dict[str, Any] = {}
    for stored in (
        RunFrame.objects.filter(run=run, step__lte=step).order_by("step").values_list("view", flat=True).iterator()
    ):
        view = frame_views.apply(view, stored) if frame_views.is_delta(stored) else stored
    return view
