"""Live run updates rendered once per step and audience, shared by every viewer of a run.

A hundred pages watching one run used to render the whole panel set a hundred times per step
(one `run_screen` + template render per consumer), so delivery took seconds. Now the panels
that are the same for every live viewer of the same audience (owner or read-only) are rendered
once per run state and kept in this process's memory; each consumer sends those bytes plus its
own small part (its `seen` marker, the log rows after its `seen`, its lesson answers).

Two parts, two keys: the status line (step, state, "N actions queued", the last action's
outcome) depends on the run's actions; the panels depend only on what the run has done (its
head step, last event, status, reveal). A Step or Play pressed on a settled run, and the
"queued" moment before every action runs, change the actions but not the panels: then only the
status line is rendered again (the cached Screen serves it), and a viewer that already has the
panels for that run state is sent the status line alone.

Freshness: a consumer asks with the time it learned that the run changed (`since`); a cached
entry built after that moment already reflects the change and is reused without touching the
database; an older one is re-checked against the run's state (a few indexed queries) and
re-rendered only if the state moved. Calls run on the consumers' database threads
(consumers/db.py), so a lock guards the table.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from django.template.loader import render_to_string

from playground.models import Run
from playground.ownership import Actor, can_control
from playground.presenters.runs import lesson as lesson_panel
from playground.presenters.runs import run_screen
from playground.presenters.runs.screen import Screen
from playground.selectors import runs as run_selectors

STATUS_TEMPLATE = "playground/runs/partials/live_status.html"
PANELS_TEMPLATE = "playground/runs/partials/live_panels.html"
VIEWER_TEMPLATE = "playground/runs/partials/live_viewer.html"
# The (run, audience) pairs kept, least recently used first out, bounded by weight like the frame
# views (each holds its Screen, whose view weighs its nodes plus pods: a large cluster's is MBs).
# A class is thirty-odd runs watched at once: a count of 32 evicted a student's rendering between
# its "queued" push and its result, so the status-only update rendered every panel again.
MAX_ENTRIES = 256
MAX_WEIGHT = 60_000


@dataclass
class SharedUpdate:
    """One rendering of a run's live panels for one audience."""

    state: tuple[Any, ...]  # panels_state + the run's actions
    panels_state: tuple[Any, ...]
    status_html: str
    panels_html: str
    screen: Screen
    built_at: float
    render_seconds: float  # CPU time the panels took to render (a playing run's pushes are paced by it)
    has_lesson: bool
    log_memo: dict[tuple[int, int], str] = field(default_factory=dict)  # (after, upto) -> rows HTML
    # (seen, hello, panels) -> a viewer's whole message and new `seen`, when it has no lesson
    # answers of its own: a hundred viewers of a run at the same `seen` share one rendering.
    part_memo: dict[tuple[int, bool, bool], tuple[str, int]] = field(default_factory=dict)

    @property
    def html(self) -> str:
        return self.status_html + self.panels_html


_table: OrderedDict[tuple[int, bool], SharedUpdate] = OrderedDict()
_weights: dict[tuple[int, bool], int] = {}
_lock = threading.Lock()
_rendering: dict[tuple[int, bool], threading.Lock] = {}  # (run, audience) -> held while one renders it


def _weight(update: SharedUpdate) -> int:
    view = update.screen.view or {}
    return 1 + len(view.get("nodes") or ()) + len(view.get("pods") or ())


def _keep(key: tuple[int, bool], update: SharedUpdate) -> None:
    """Store `update` (the caller holds `_lock`); drop the least recently used beyond the bounds
    (the newest is always kept)."""
    _table[key] = update
    _table.move_to_end(key)
    _weights[key] = _weight(update)
    total = sum(_weights.values())
    while len(_table) > 1 and (len(_table) > MAX_ENTRIES or total > MAX_WEIGHT):
        old, _ = _table.popitem(last=False)
        total -= _weights.pop(old, 0)
        _rendering.pop(old, None)


def panels_state(run: Run, running: int | None = None) -> tuple[Any, ...]:
    """What a live viewer's panels depend on: when it changes, they are rendered again.
    `running`: the run's running actions, when the caller counted them already."""
    if running is None:
        recovering = run_selectors.run_recovering(run=run)
    else:
        recovering = bool(running) and run_selectors.lease_lost(run=run)
    return (
        run.share_token,  # a row id can be reused (a test's rolled-back run): never a stale entry
        run.head_step,
        run.last_seq,
        run.reveal,
        run.status,
        run.speed,
        run.pause_requested,
        recovering,
    )


def run_state(run: Run) -> tuple[Any, ...]:
    """What the whole live update depends on: the panels' state and the run's actions (the
    status line's "queued" badge and last outcome)."""
    total, active, running = run_selectors.action_counts(run=run)
    return (*panels_state(run, running), total, active)


def audience_of(run: Run, actor: Actor) -> bool:
    """True: the owner's audience (may control the run); False: a read-only viewer."""
    return bool(can_control(run=run, actor=actor))


def shared_update(run_id: int, actor: Actor, audience: bool | None, since: float) -> SharedUpdate | None:
    """The live panels of run `run_id` for `audience`, rendered at most once per run state.
    None: the run is gone."""
    if audience is not None:
        with _lock:
            cached = _table.get((run_id, audience))
            if cached is not None and cached.built_at >= since:
                _table.move_to_end((run_id, audience))
                return cached
            if len(_rendering) > 4 * MAX_ENTRIES:  # locks of runs no longer kept, not held now
                for key in [k for k, held in _rendering.items() if k not in _table and not held.locked()]:
                    del _rendering[key]
            rendering = _rendering.setdefault((run_id, audience), threading.Lock())
        # One rendering per run and audience at a time: the consumers' database threads would
        # otherwise render the same new state side by side for each viewer that asks at once.
        with rendering:
            return _shared_update(run_id, actor, audience, since)
    return _shared_update(run_id, actor, audience, since)


def _shared_update(run_id: int, actor: Actor, audience: bool | None, since: float) -> SharedUpdate | None:
    if audience is not None:
        with _lock:
            cached = _table.get((run_id, audience))
            if cached is not None and cached.built_at >= since:  # rendered while this one waited
                _table.move_to_end((run_id, audience))
                return cached
    checked_at = time.monotonic()
    run = Run.objects.defer("scenario_yaml").filter(pk=run_id).first()  # the YAML: MBs at 5,000 nodes
    if run is None:
        return None
    if audience is None:
        audience = audience_of(run, actor)
    counts = run_selectors.action_counts(run=run)
    panels = panels_state(run, counts[2])
    state = (*panels, counts[0], counts[1])
    key = (run_id, audience)
    with _lock:
        cached = _table.get(key)
        if cached is not None and cached.state == state:
            cached.built_at = max(cached.built_at, checked_at)
            _table.move_to_end(key)
            return cached
    progress = run_selectors.run_progress(run=run, counts=counts)
    started = time.thread_time()
    render_seconds = 0.0
    if cached is not None and cached.panels_state == panels:
        screen = cached.screen  # only the actions moved: the panels (and the Screen) still hold
        panels_html = cached.panels_html
        render_seconds = cached.render_seconds
    else:
        screen = run_screen(run=run, actor=actor)
        panels_html = render_to_string(
            PANELS_TEMPLATE, {"screen": screen, "run": run, "progress": progress, "oob": True, "following": False}
        )
        render_seconds = time.thread_time() - started
    status_html = render_to_string(
        STATUS_TEMPLATE, {"screen": screen, "run": run, "progress": progress, "oob": True, "following": False}
    )
    update = SharedUpdate(
        state=state,
        panels_state=panels,
        status_html=status_html,
        panels_html=panels_html,
        screen=screen,
        built_at=checked_at,
        render_seconds=render_seconds,
        has_lesson=lesson_panel.lesson_of_run(screen) is not None,
    )
    with _lock:
        _keep(key, update)
    return update


def cached_update(run_id: int, audience: bool | None, since: float) -> SharedUpdate | None:
    """The cached rendering for `audience` if it was built or checked after `since`, without
    touching the database (None: ask `shared_update`)."""
    if audience is None:
        return None
    with _lock:
        cached = _table.get((run_id, audience))
        if cached is not None and cached.built_at >= since:
            _table.move_to_end((run_id, audience))
            return cached
    return None


def viewer_part(
    update: SharedUpdate, *, seen: int, answers: dict[str, str] | None, hello: bool, panels: bool = True,
    memo_only: bool = False,
) -> tuple[str, int] | None:
    """This viewer's own part of an update: its `seen` marker, the log rows after `seen` (the
    same rows for every viewer at the same `seen`: rendered once) and its lesson panel, with the
    shared status line and (`panels`: the viewer does not have them yet) the shared panels.
    Returns the HTML and the viewer's new `seen`; with `memo_only`, None when the log rows
    would have to be read from the database (another viewer has not read them yet)."""
    screen = update.screen
    memo_key = (seen, hello, panels)
    shared_part = not update.has_lesson
    if shared_part:
        with _lock:
            part = update.part_memo.get(memo_key)
        if part is not None:
            return part
    upto = screen.shown_seq
    rows_html = log_rows_html(update, seen, memo_only=memo_only and upto > seen)
    if rows_html is None:
        return None
    new_seen = seen
    if upto > seen and rows_html:
        new_seen = upto  # every event up to the screen's is either appended or behind a gap marker
    lesson_screen = replace(screen, answers=answers or {}) if update.has_lesson else None
    own = render_to_string(
        VIEWER_TEMPLATE,
        {"run": screen.run, "screen": lesson_screen, "seen": new_seen, "hello": hello, "oob": True},
    )
    shared = update.html if panels else update.status_html
    part = (own + shared + rows_html, new_seen)
    if shared_part and len(update.part_memo) < 64:
        with _lock:
            update.part_memo[memo_key] = part
    return part


def log_rows_html(update: SharedUpdate, seen: int, *, memo_only: bool = False) -> str | None:
    """The event-log rows a viewer at `seen` is sent with `update` (rendered once per `seen`:
    kept in the update's memo). With `memo_only`, None when they are not in the memo yet (they
    would have to be read from the database)."""
    screen = update.screen
    upto = screen.shown_seq
    with _lock:
        rows_html = update.log_memo.get((seen, upto))
    if rows_html is not None or memo_only:
        return rows_html
    log, omitted = run_selectors.log_rows(run=screen.run, after_seq=seen, upto_seq=upto)
    rows_html = render_to_string(
        "playground/runs/partials/log_append.html",
        {"run": screen.run, "log": log, "omitted": omitted, "gap_after": seen},
    )
    if len(update.log_memo) < 64:
        with _lock:
            update.log_memo[(seen, upto)] = rows_html
    return rows_html


def forget(run_id: int | None = None) -> None:
    """Drop the cached renderings (of one run, or all): tests, and a run that was deleted."""
    with _lock:
        for key in [k for k in _table if run_id is None or k[0] == run_id]:
            del _table[key]
            _weights.pop(key, None)
        for key in [k for k in _rendering if run_id is None or k[0] == run_id]:
            del _rendering[key]
