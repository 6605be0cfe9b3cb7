"""Executing and storing engine units, for the worker's actions and its fast-forwards alike:
the run's engine fetched only when an action needs one (`LazyEngine`, `engine_for`), the clock
run forward (`run_clock_for`), and one transaction per batch followed by the run's news
(`commit`). The worker (`worker.py`) decides what to execute; this module is how.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from playground.infra.bulk_insert import update_rows
from playground.infra.lease import RunLease
from playground.models import Run, RunAction
from playground.services.runs import news
from playground.services.runs.cache import EngineCache
from playground.services.runs.engine import Engine
from playground.services.runs.errors import LeaseLost

logger = logging.getLogger(__name__)

MAX_PLAY_UNITS = 20000  # a safety net for one play action (and one clock action)
YIELD_LOOK_SECONDS = 0.02  # a play looks for a client's waiting action at most this often (one Redis round trip)


class LazyEngine:
    """The run's engine, fetched from the cache (or rebuilt) only by actions that need one."""

    def __init__(self, cache: EngineCache, run: Run, lease: RunLease | None = None) -> None:
        self.cache, self.run, self.lease = cache, run, lease

    def get(self) -> Engine:
        if self.lease is None or self.run.pk in self.cache:
            return self.cache.get(self.run)
        with self.lease.extended():  # a rebuild restores a checkpoint: seconds at 5,000 nodes
            return self.cache.get(self.run)


def engine_for(run: Run, engine: Engine | LazyEngine | None) -> Engine:
    """The run's engine (cached or rebuilt), its extender time budget started for this action
    (a rebuild does not count: it replays stored answers)."""
    if isinstance(engine, LazyEngine):
        engine = engine.get()
    elif engine is None:
        engine = Engine.rebuild(run)
    engine.sim.extender_transcript.policy.start_budget()
    return engine


def commit(
    run_id: int,
    engine: Engine | LazyEngine | None,
    action: RunAction,
    *,
    state: str,
    result: str = "",
    extra: dict[str, Any] | None = None,
    lease: RunLease | None = None,
    playing: bool = False,
    done_before: list[RunAction] | tuple[RunAction, ...] = (),
) -> None:
    """One transaction: pending frames and events, the run's progress, the action's state.
    `done_before`: actions executed earlier in the same batch (state and result set), stored
    done in the same transaction.
    `playing`: a batch in the middle of "play" (a due checkpoint may wait: Engine.store_checkpoint).
    `lease`: this worker's; if another worker took the run, nothing is written (LeaseLost)."""
    if lease is not None and lease.lost:
        raise LeaseLost(run_id)
    if isinstance(engine, Engine):
        engine.prepare_pending()  # the JSON encoded before the transaction takes the database
    with transaction.atomic():
        run = Run.objects.select_for_update().defer("scenario_yaml").get(pk=run_id)
        fields: dict[str, Any] = dict(extra or {})
        if isinstance(engine, Engine) and engine.dirty:
            if run.head_step != engine.stored_step or run.last_seq != engine.stored_seq:
                raise RuntimeError(f"run {run_id}: the log moved under this worker; giving up")
            first = engine.frames[0].step
            fields.update(engine.run_fields())
            engine.flush()
            if action.first_step is None:
                action.first_step = first
            action.last_step = engine.step
        if fields:
            Run.objects.filter(pk=run_id).update(**fields)
        action.state = state
        action.result = result[:300]
        if state in (RunAction.STATE_DONE, RunAction.STATE_FAILED):
            action.done_at = timezone.now()
        action.save(update_fields=["state", "result", "first_step", "last_step", "done_at"])
        if done_before:
            update_rows(RunAction, ("state", "result", "first_step", "last_step", "done_at"),
                        [(a.state, a.result, a.first_step, a.last_step, action.done_at, a.pk) for a in done_before])
    latest = Run.objects.filter(pk=run_id).values("head_step", "last_seq").first() or {}
    news.notify(run_id, head_step=latest.get("head_step"), last_seq=latest.get("last_seq"))
    if isinstance(engine, Engine) and engine.checkpoint_ready(playing=playing):  # after the news: nobody waits
        with lease.extended() if lease is not None else contextlib.nullcontext():
            if engine.store_checkpoint(playing=playing):
                logger.info("run %s: checkpoint at step %s", run_id, engine.stored_step)


def settled_outcome(kind: str) -> dict[str, Any]:
    """The run fields a Step (or Step to the next point) or a Play of a settled run sets, with
    the action done and its result "settled": nothing is computed. One rule for the worker and
    for the web, which records such an action itself when nothing is queued before it
    (actions.run_enqueue)."""
    if kind == RunAction.KIND_PLAY:
        return {"pause_requested": False, "status": Run.STATUS_SETTLED}
    return {"reveal": None}


def node_count(engine: Engine) -> int:
    """The nodes in the engine's latest view: what one step costs against the quota."""
    return len((engine.view or {}).get("nodes") or [])


def run_clock_for(engine: Any, seconds: float, max_time: float, action_index: int) -> None:
    """Let the clock run `seconds` (up to the run's max time), doing everything due on the way:
    cycles, timers, and the unschedulable pods' 5-minute leftover flush (every 30 s), which the
    plain "Advance clock" does not wait for because it alone is no reason to keep running. A
    settled run's clock moves anyway, so the flush becomes visible."""
    sim = engine.sim
    target = min(sim.clock.now() + seconds, max_time)
    for _ in range(MAX_PLAY_UNITS):
        result = engine.execute({"op": "step", "max_time": target}, action_index)
        if result in ("cycle", "clock"):
            continue
        now = sim.clock.now()
        flush = sim.scheduler.queue.next_leftover_wakeup(now)
        if flush is not None and now < flush <= target:
            engine.execute({"op": "clock", "to": flush}, action_index)
            continue
        if now < target:
            engine.execute({"op": "clock", "to": target}, action_index)
        return
