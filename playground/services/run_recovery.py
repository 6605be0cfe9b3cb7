"""Runs recover by themselves: a run whose worker died (SIGKILL, OOM, a Redis restart that lost
its queued task) has actions left 'pending' or 'running' while nobody holds its lock.

`recover_run` re-queues such a run once its lease has expired (infra/lease.py: renewed
by a heartbeat while a worker works, so a live worker is never doubled); the task it queues replays the run from its stored log
and continues with the same events (see services/runs/). Duplicate tasks are harmless (they find
the work done or the lock taken); a short Redis marker keeps sweeps from piling them up.

Who calls it: a worker at startup and every SWEEP_SECONDS from its main process (which outlives a
killed pool process), and every open run page's websocket on connect and on its timer.
"""

from __future__ import annotations

import logging
import os
import threading

from django.db import close_old_connections
from django.db.models import Max

from playground.infra import lease
from playground.models import RunAction
from playground.services.runs import dispatch

logger = logging.getLogger(__name__)

SWEEP_SECONDS = float(os.environ.get("PLAYGROUND_SWEEP_SECONDS", "5"))
REQUEUE_DEBOUNCE = 10  # seconds between two re-queues of one run by sweeps


def _unfinished(run_id: int | None = None) -> dict[int, int]:
    rows = RunAction.objects.filter(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
    if run_id is not None:
        rows = rows.filter(run_id=run_id)
    return {r["run_id"]: r["last"] for r in rows.values("run_id").annotate(last=Max("index"))}


def recover_run(run_id: int, *, last_index: int | None = None) -> bool:
    """Re-queue the run when it has unfinished actions and no worker holds it. True if queued."""
    if last_index is None:
        last_index = _unfinished(run_id).get(run_id)
        if last_index is None:
            return False
    client = lease.shared_client()
    if client.exists(lease.key(run_id)):
        return False  # a worker is on it (its lease is renewed while it works)
    if dispatch.continuation_waiting(run_id):
        return False  # a play between two slices, its next one queued at a live worker
    if not client.set(f"playground:run-requeued:{run_id}", 1, nx=True, ex=REQUEUE_DEBOUNCE):
        return False  # re-queued a moment ago: that task is on its way
    logger.warning("run %s: unfinished actions and no worker on it; queueing it again", run_id)
    dispatch.schedule(run_id, last_index, force=True)
    return True


def recover_all() -> int:
    """One sweep over every run with unfinished actions. Returns how many were re-queued."""
    return sum(recover_run(run_id, last_index=last) for run_id, last in _unfinished().items())


def start_sweeper(interval: float = SWEEP_SECONDS) -> threading.Thread:
    """A daemon thread sweeping every `interval` s (the worker's main process starts it)."""

    def loop() -> None:
        stop = threading.Event()
        while not stop.wait(interval):
            try:
                close_old_connections()
                recover_all()
            except Exception:  # Redis or the database away for a moment: try again next time
                logger.warning("run sweep failed", exc_info=True)
            finally:
                close_old_connections()

    thread = threading.Thread(target=loop, name="run-sweeper", daemon=True)
    thread.start()
    return thread
