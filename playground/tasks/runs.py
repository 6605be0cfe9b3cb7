"""Celery tasks for runs: thin wrappers around playground.services.runs (imported in their bodies).

Services send them by name (`dispatch.ADVANCE_RUN_TASK`), never by importing this module."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import celeryd_after_setup, worker_ready

from playground.tasks.limits import Limits, time_limited
from playground.tasks.priority import in_background

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="playground.advance_run", acks_late=True, max_retries=None)
def advance_run_task(self: Task, run_id: int, action_index: int, ticket: str | None = None) -> int:
    """Execute the run's pending actions (action_index names the one that queued this task; a
    task whose action another task already executed does nothing; 0: a run just started, build
    its engine ahead of the first action; -1: the next slice of a play, with its `ticket`)."""
    from playground.infra.queues import home_queue, runs_queue
    from playground.services.runs import dispatch
    from playground.services.runs.errors import LeaseLost, RunBusy
    from playground.services.runs.worker import advance_run

    if ticket is not None and not dispatch.ticket_is_current(run_id, ticket):
        return 0  # a newer continuation of this play exists (or a user action's task took it over)
    dispatch.taken(run_id)  # before the pending actions are read: an action queued after this gets a task
    queue = (
        (self.request.delivery_info or {}).get("routing_key")
        or runs_queue()
        or self.app.conf.task_default_queue
    )
    home = home_queue(self.request.hostname) if self.request.hostname else None
    served = [q for q in dict.fromkeys([queue, home, *consumed_queues(self.app)]) if q]  # where a play looks for waiting work

    limits = Limits.for_runs()

    def advance() -> int:
        return advance_run(run_id, warm=action_index == 0, queues=served, home=home,
                                       stopped=limits.soft_message())

    def overran() -> None:  # the hard limit, from the watchdog thread: the process restarts next
        from playground.infra import lease
        from playground.services.runs.worker import EXECUTING, stop_overrun

        stop_overrun(run_id, limits.hard_message(), index=EXECUTING.get(run_id))
        lease.shared_client().delete(lease.key(run_id))  # no need to wait for it to expire

    try:
        with time_limited(limits, overran):
            if action_index == -1:  # a play's next slice: nobody waits for it (tasks/priority.py)
                return in_background(advance)
            return advance()
    except SoftTimeLimitExceeded:  # outside any action (advance_run fails the one it stops)
        from playground.services.runs.worker import stop_overrun

        logger.warning("run %s: task stopped at its soft time limit between actions", run_id)
        stop_overrun(run_id, limits.soft_message())
        return 0
    except LeaseLost:
        return 0  # another worker took the run over; it continues from the stored log
    except RunBusy:
        options = {"queue": queue} if queue else {}
        priority = (self.request.delivery_info or {}).get("priority")
        raise self.retry(countdown=0.2, priority=priority, **options) from None


def consumed_queues(app: Any) -> list[str]:
    """The names of the queues this worker process consumes (its home queue among them)."""
    return list(getattr(app.amqp.queues, "consume_from", None) or {})


@celeryd_after_setup.connect
def _consume_home_queue(sender: str, instance: Any, **kwargs: object) -> None:
    """Every worker also consumes its own queue, where the runs whose engines it holds are sent
    (fleet.home_of): a run's next step then finds its engine in memory."""
    from playground.infra.queues import home_queue

    instance.app.amqp.queues.select_add(home_queue(sender))


def _beat_alive(home: str, serves: list[str]) -> None:
    """Say every second that this worker is alive, so runs are sent to its home queue only
    while it can take them."""
    import time

    from playground.services.runs import fleet

    while True:
        try:
            fleet.beat_alive(home, serves)
        except Exception:  # Redis away for a moment
            pass
        time.sleep(1.0)


@worker_ready.connect
def _resume_runs_on_startup(sender: object = None, **kwargs: object) -> None:
    """A worker killed mid-play left its action 'running' (its message waits in Redis until the
    broker's visibility timeout): a starting worker queues those runs again at once."""
    from playground.services.runs import dispatch

    try:
        count = dispatch.resume_unfinished_runs()
    except Exception:  # no tables yet (fresh database): nothing to resume
        logger.warning("could not look for unfinished runs", exc_info=True)
        return
    if count:
        logger.info("resumed %d unfinished run(s)", count)
    import threading

    from playground.infra.queues import home_queue
    from playground.services.run_recovery import start_sweeper

    start_sweeper()  # in the main process: it outlives a pool process that is killed mid-run
    hostname = getattr(sender, "hostname", None)
    if hostname:
        home = home_queue(hostname)
        serves = [queue for queue in consumed_queues(sender.app) if queue != home]
        threading.Thread(target=_beat_alive, args=(home, serves), name="alive", daemon=True).start()
