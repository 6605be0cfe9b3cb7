"""Sending work to the workers: queueing a run's actions (its home worker first, or the worker
where the least waits), a play's next slice, an engine's warm-up, and the runs left unfinished.

Tasks are sent by their registered names (`send_task`), so no service imports a tasks module:
the tasks call services, never the other way round. Where the workers are and how busy
(`fleet`) and telling the run's pages that the log grew (`news`) are modules of their own.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db.models import Max

from playground.infra import redis_client
from playground.infra.queues import (
    CONTINUATION_PRIORITY,
    INTERACTIVE_PRIORITIES,
    WARM_PRIORITY,
    default_queue,
    runs_queue,
    send_task,
)
from playground.models import Run, RunAction
from playground.services.extender_access import EXTENDER_MARK, uses_extenders
from playground.services.runs.fleet import HOME_BACKLOG, home_of, next_home, set_home, waiting_in

logger = logging.getLogger(__name__)

ADVANCE_RUN_TASK = "playground.advance_run"  # playground/tasks/runs.py


def queue_for(run_id: int, yaml_text: str | None = None) -> str | None:
    """The run's Celery queue: runs that may call extenders have their own (and their own
    worker), so a run waiting on a slow extender never delays the others."""
    queue = runs_queue()
    extender_queue = getattr(settings, "PLAYGROUND_EXTENDER_QUEUE", "")
    if not extender_queue:
        return queue
    if yaml_text is None:
        # The database answers the textual test (uses_extenders): the YAML (MBs at 5,000
        # nodes) is not read for every action.
        extenders = Run.objects.filter(pk=run_id, scenario_yaml__contains=EXTENDER_MARK).exists()
    else:
        extenders = uses_extenders(yaml_text)
    if extenders:
        queue = f"{queue}.{extender_queue}" if queue else extender_queue
    return queue


def _continuation_key(run_id: int) -> str:
    return f"playground:run-next:{run_id}"


def action_priority(run_id: int, index: int, owner: dict[str, Any] | None = None) -> int:
    """The priority of the task queued for action `index` of the run (0: warming the engine):
    how many actions of the run's owner wait before it (capped). `owner`: the run's
    `owner_token` and `owner_id`, when the caller has them."""
    if index == 0:
        return WARM_PRIORITY
    if owner is None:
        owner = Run.objects.filter(pk=run_id).values("owner_token", "owner_id").first()
    if owner is None:
        return 0
    waiting = RunAction.objects.filter(state=RunAction.STATE_PENDING)
    if owner["owner_id"] is not None:
        waiting = waiting.filter(run__owner_id=owner["owner_id"])
    elif owner["owner_token"]:
        waiting = waiting.filter(run__owner_token=owner["owner_token"])
    else:
        waiting = waiting.filter(run_id=run_id)
    ahead = waiting.exclude(run_id=run_id, index__gte=index).count()
    return min(ahead, INTERACTIVE_PRIORITIES - 1)


INTERACTIVE_KEY = "playground:interactive"
INTERACTIVE_WINDOW = 1.0  # s an action counts as "coming in" for the plays (worker.PLAY_SHARE)


def interactive_recently() -> bool:
    """Has any client queued an action in the last INTERACTIVE_WINDOW seconds?"""
    try:
        return bool(redis_client.shared().exists(INTERACTIVE_KEY))
    except Exception:
        return False


def _queued_key(run_id: int) -> str:
    return f"playground:run-queued:{run_id}"


QUEUED_TTL = 30  # s a "task waiting" mark lasts at most (a lost task is re-queued by the sweeps anyway)


def taken(run_id: int) -> None:
    """A task of the run was taken by a worker (called before it reads the run's pending
    actions): the next action of the run needs a task of its own again."""
    try:
        redis_client.shared().delete(_queued_key(run_id))
    except Exception:
        pass


def schedule(
    run_id: int, index: int, owner: dict[str, Any] | None = None, *, needs_engine: bool = True,
    force: bool = False,
) -> None:
    """Queue the worker for action `index` of the run. `needs_engine` False (a Step or Play of a
    settled run: nothing to compute): any worker will do, so it is not sent to the home of the
    run's engine, where it could wait behind another run's play slice.

    A task executes every pending action of its run, so while one of the run's tasks still waits
    in a queue (not yet `taken`) a client's next action needs none: 40 Steps queued behind a
    busy worker were 40 tasks, 39 of them finding their action done, and a second worker took
    some of them while the run's own worker was executing it (the lease said wait, the task
    retried). `force`: queue one anyway (the sweeps re-queueing a run whose task was lost)."""
    if index > 0:
        try:
            with redis_client.shared().pipeline(transaction=False) as pipe:  # one round trip
                pipe.set(INTERACTIVE_KEY, 1, px=int(INTERACTIVE_WINDOW * 1000))
                pipe.set(_queued_key(run_id), 1, nx=True, ex=QUEUED_TTL)
                first = pipe.execute()[1]
            if not first and not force:
                return  # the run's waiting task executes this action too
        except Exception:  # Redis away: the task below says so
            pass
    shared = queue_for(run_id)
    home = home_of(run_id) if needs_engine else None
    if home is not None and waiting_in(home) >= HOME_BACKLOG:
        home = None  # its worker has a backlog: the first free worker takes it (and the engine)
    elif home is None and needs_engine:
        home = next_home(shared or default_queue())  # built where the least waits
        if home is not None:
            # The run's home from now on, not only once a worker has taken this task: its next
            # action (a class starts a run, then steps it at once) follows it there instead of
            # being placed again, and built on the other worker (runs settled 8 to 4).
            set_home(run_id, home)
    queue = home or shared
    options: dict[str, Any] = {"queue": queue} if queue else {}
    send_task(ADVANCE_RUN_TASK, (run_id, index), priority=action_priority(run_id, index, owner), **options)


def schedule_continuation(run_id: int, queue: str | None = None) -> None:
    """Queue the next slice of the run's play, behind everything waiting. It carries a ticket;
    only the latest ticket continues the play (an older continuation, or one made stale by a
    user action's task taking the play over, does nothing), so a play has at most one."""
    import uuid

    ticket = uuid.uuid4().hex
    queue = home_of(run_id) or queue or queue_for(run_id)
    options: dict[str, Any] = {"queue": queue} if queue else {}
    try:
        redis_client.shared().set(_continuation_key(run_id), ticket, ex=3600)
        send_task(ADVANCE_RUN_TASK, (run_id, -1), {"ticket": ticket}, priority=CONTINUATION_PRIORITY, **options)
    except Exception:  # Redis away: the run's recovery queues it again (its play is pending)
        logger.warning("run %s: could not queue the play's next slice", run_id, exc_info=True)


def clear_continuation(run_id: int) -> None:
    """The play ended: no continuation of it is current any more."""
    try:
        redis_client.shared().delete(_continuation_key(run_id))
    except Exception:
        pass


def continuation_waiting(run_id: int) -> bool:
    """Is the run's play waiting in the queue of a live worker for its next slice (so a run
    with a pending action and no lease is not abandoned)?"""
    try:
        return bool(redis_client.shared().exists(_continuation_key(run_id))) and home_of(run_id) is not None
    except Exception:
        return False


def ticket_is_current(run_id: int, ticket: str) -> bool:
    """Is `ticket` the play's latest continuation? (Redis lost it: yes, let it continue.)"""
    current = redis_client.shared().get(_continuation_key(run_id))
    return current is None or current.decode() == ticket


WARM_TTL = 60  # s one warm-up request of a run stands for the next ones (its task is on its way)


def _warm_key(token: str) -> str:
    return f"playground:run-warm:{token}"


def warm(run_id: int, token: str = "") -> bool:
    """Have a worker build the run's engine now (action index 0: no action), so the first Step
    of a big run does not wait for a checkpoint restore. Best effort: without it the first
    action builds the engine, so a broker that cannot take the task now is only logged.

    `token` (the run's share token, unique for ever): asked once per WARM_TTL. The start asks,
    then its page, then every reload of it until the first action: one task builds the engine
    and the others would only wait for its lease (and a second worker taking one of them
    would restore the checkpoint a second time). True when a task was queued."""
    if token:
        try:
            if not redis_client.shared().set(_warm_key(token), 1, nx=True, ex=WARM_TTL):
                return False
        except Exception:  # Redis away: the broker is too, most likely; try anyway
            pass
    try:
        schedule(run_id, 0)
    except Exception:
        logger.warning("run %s: could not queue the engine warm-up", run_id, exc_info=True)
        return False
    return True


def resume_unfinished_runs() -> int:
    """Queue the worker for every run with pending or interrupted actions (a worker starting up
    calls this: a worker that was killed mid-play left its action 'running')."""
    rows = (
        RunAction.objects.filter(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
        .values("run_id")
        .annotate(first=Max("index"))
    )
    count = 0
    for row in rows:
        schedule(row["run_id"], row["first"], force=True)
        count += 1
    return count
