"""Between the web and the worker: queueing the worker for a run, and telling the run's pages
that its log grew (they read what changed from the database)."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Max

from playground.groups import RUN_UPDATED_EVENT, run_group, send_to_group
from playground.models import Run, RunAction
from playground.services.extender_access import EXTENDER_MARK, uses_extenders
from playground.tasks.runs import advance_run_task

logger = logging.getLogger(__name__)


def notify(run_id: int, *, head_step: int | None = None, last_seq: int | None = None) -> None:
    """Tell every open page of the run that the log grew (they read what changed from the DB)."""
    try:
        send_to_group(run_group(run_id), RUN_UPDATED_EVENT, head_step=head_step, last_seq=last_seq)
    except Exception:  # the log is the truth: a lost notification is caught up on reconnect
        logger.warning("run %s: notification failed", run_id, exc_info=True)
    from playground.services.challenges import notify_results_for_run

    notify_results_for_run(run_id=run_id)


def runs_queue() -> str | None:
    """The Celery queue for run tasks (None: the default). Tests point it at their own worker."""
    return getattr(settings, "PLAYGROUND_RUNS_QUEUE", None) or os.environ.get("PLAYGROUND_RUNS_QUEUE") or None


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


# Task priorities (Redis: 0 is served first; see CELERY_BROKER_TRANSPORT_OPTIONS). A client's
# first waiting action gets 0, its second 1, ... so one client's backlog never stands in front
# of another client's Step; a play's next slice waits behind every action; warming is between.
INTERACTIVE_PRIORITIES = 8  # 0..7
WARM_PRIORITY = 8
CONTINUATION_PRIORITY = 9


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


# Engine affinity: a worker process keeps the engines of the runs it executed (cache.py); a run's
# next task goes to that process's own queue ("home") while the process is alive, so it finds
# its engine in memory instead of rebuilding it from a checkpoint (300 nodes: 0.2 s, 5,000
# nodes: seconds). Every worker consumes its home queue besides the shared ones (tasks/runs.py).
HOME_TTL = 3600
ALIVE_TTL = 3.0  # a worker's alive key outlives its last beat by this long (it beats every second)


def home_queue(hostname: str) -> str:
    return f"home.{hostname}"


def _home_key(run_id: int) -> str:
    return f"playground:run-home:{run_id}"


def _alive_key(queue: str) -> str:
    return f"playground:worker-alive:{queue}"


def set_home(run_id: int, queue: str) -> None:
    """The run's engine now lives in the worker process that consumes `queue`."""
    try:
        _shared_redis().set(_home_key(run_id), queue, ex=HOME_TTL)
    except Exception:
        logger.warning("run %s: could not record its worker", run_id)


def beat_alive(queue: str, serves: list[str] | tuple[str, ...] = ()) -> None:
    """The worker consuming its home `queue` is alive; `serves`: the shared queues it also takes
    tasks from (where `next_home` may place a run whose tasks go to one of them)."""
    _shared_redis().set(_alive_key(queue), ",".join(serves) or "1", px=int(ALIVE_TTL * 1000))


def home_of(run_id: int) -> str | None:
    """The home queue of the run's engine, if that worker process is alive and not busy with
    long work (a big scenario's start: seconds) that its queue would wait behind; otherwise
    None: any worker takes the task and rebuilds the engine (0.2 s at 300 nodes)."""
    try:
        client = _shared_redis()
        home = client.get(_home_key(run_id))
        if home is None:
            return None
        home = home.decode()
        with client.pipeline(transaction=False) as pipe:
            pipe.exists(_alive_key(home))
            pipe.exists(_busy_key(home))
            alive, busy = pipe.execute()
        return home if alive and not busy else None
    except Exception:
        return None


def _busy_key(queue: str) -> str:
    return f"playground:worker-busy:{queue}"


BUSY_TTL = 600  # s a busy mark outlives a worker that died while holding it


@contextlib.contextmanager
def busy(queue: str | None) -> Iterator[None]:
    """Mark the worker process consuming `queue` busy with long work for the block: runs whose
    engine it holds are sent to any worker meanwhile (`home_of`)."""
    if not queue:
        yield
        return
    try:
        _shared_redis().set(_busy_key(queue), 1, ex=BUSY_TTL)
    except Exception:
        pass
    try:
        yield
    finally:
        try:
            _shared_redis().delete(_busy_key(queue))
        except Exception:
            pass


def any_worker_alive() -> bool:
    """Is any worker process beating its alive key (so queued work will be done)?"""
    try:
        return any(True for _ in _shared_redis().scan_iter(match=_alive_key("*"), count=100))
    except Exception:
        return False


INTERACTIVE_KEY = "playground:interactive"
INTERACTIVE_WINDOW = 1.0  # s an action counts as "coming in" for the plays (worker.PLAY_SHARE)


def interactive_recently() -> bool:
    """Has any client queued an action in the last INTERACTIVE_WINDOW seconds?"""
    try:
        return bool(_shared_redis().exists(INTERACTIVE_KEY))
    except Exception:
        return False


def _queued_key(run_id: int) -> str:
    return f"playground:run-queued:{run_id}"


QUEUED_TTL = 30  # s a "task waiting" mark lasts at most (a lost task is re-queued by the sweeps anyway)


def taken(run_id: int) -> None:
    """A task of the run was taken by a worker (called before it reads the run's pending
    actions): the next action of the run needs a task of its own again."""
    try:
        _shared_redis().delete(_queued_key(run_id))
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
            with _shared_redis().pipeline(transaction=False) as pipe:  # one round trip
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
        home = next_home(shared or advance_run_task.app.conf.task_default_queue)  # built where the least waits
        if home is not None:
            # The run's home from now on, not only once a worker has taken this task: its next
            # action (a class starts a run, then steps it at once) follows it there instead of
            # being placed again, and built on the other worker (runs settled 8 to 4).
            set_home(run_id, home)
    queue = home or shared
    options: dict[str, Any] = {"queue": queue} if queue else {}
    advance_run_task.apply_async((run_id, index), priority=action_priority(run_id, index, owner), **options)


def next_home(shared: str) -> str | None:
    """Where a run without a live engine gets one built (and keeps it): among the live workers
    that take tasks from the run's `shared` queue, the one with the fewest clients' tasks
    waiting, the workers taking turns among equals. A class starting its runs together so fills
    every worker alike, instead of whichever worker happened to take their first tasks (runs had
    settled 7 to 5, 8 to 4 or 11 to 1 on two workers, and the worker with more runs does more
    steps while the other waits). None: no such worker is alive and free (the shared queue then)."""
    try:
        client = _shared_redis()
        prefix = _alive_key("")
        keys = sorted(client.scan_iter(match=_alive_key("*"), count=100))
        homes = [key.decode()[len(prefix):] for key, serves in zip(keys, client.mget(keys) if keys else [], strict=True)
                 if serves is not None and shared in serves.decode().split(",")]
        if homes:
            homes = [home for home, busy in zip(homes, client.mget([_busy_key(h) for h in homes]), strict=True)
                     if busy is None]
        if not homes:
            return None
        turn = client.incr(NEXT_HOME_KEY) % len(homes)
        return min(homes[turn:] + homes[:turn], key=waiting_in)
    except Exception:
        return None


NEXT_HOME_KEY = "playground:next-home"
HOME_BACKLOG = 3  # client tasks (runs: one waiting task each) in a worker's own queue before any worker will do


def waiting_in(queue: str) -> int:
    """How many clients' tasks (actions and warm-ups, not a play's next slice: that one always
    waits behind them) wait in `queue`; 0 when Redis cannot be asked.

    Engine affinity must not cost capacity: a run's tasks go to its engine's worker, and while
    that worker works through a backlog of them another worker could be idle with nothing in
    the shared queue (a class's runs had settled 7 to 5 on two workers, so the two together
    were at most 12/7 = 1.7 times one). Past HOME_BACKLOG waiting tasks the next goes to the
    shared queue, where any free worker takes it, restoring the run's engine from its
    checkpoint (a fraction of a second at a few hundred nodes) and becoming its home. A run has
    at most one task waiting (`schedule`), so this counts runs, not presses of Step."""
    return sum(_lengths([queue], below=CONTINUATION_PRIORITY) or [0])


def schedule_continuation(run_id: int, queue: str | None = None) -> None:
    """Queue the next slice of the run's play, behind everything waiting. It carries a ticket;
    only the latest ticket continues the play (an older continuation, or one made stale by a
    user action's task taking the play over, does nothing), so a play has at most one."""
    import uuid

    ticket = uuid.uuid4().hex
    queue = home_of(run_id) or queue or queue_for(run_id)
    options: dict[str, Any] = {"queue": queue} if queue else {}
    try:
        _shared_redis().set(_continuation_key(run_id), ticket, ex=3600)
        advance_run_task.apply_async(
            (run_id, -1), {"ticket": ticket}, priority=CONTINUATION_PRIORITY, **options
        )
    except Exception:  # Redis away: the run's recovery queues it again (its play is pending)
        logger.warning("run %s: could not queue the play's next slice", run_id, exc_info=True)


def clear_continuation(run_id: int) -> None:
    """The play ended: no continuation of it is current any more."""
    try:
        _shared_redis().delete(_continuation_key(run_id))
    except Exception:
        pass


def continuation_waiting(run_id: int) -> bool:
    """Is the run's play waiting in the queue of a live worker for its next slice (so a run
    with a pending action and no lease is not abandoned)?"""
    try:
        return bool(_shared_redis().exists(_continuation_key(run_id))) and home_of(run_id) is not None
    except Exception:
        return False


def ticket_is_current(run_id: int, ticket: str) -> bool:
    """Is `ticket` the play's latest continuation? (Redis lost it: yes, let it continue.)"""
    current = _shared_redis().get(_continuation_key(run_id))
    return current is None or current.decode() == ticket


def others_waiting(queues: list[str], *, below: int = CONTINUATION_PRIORITY + 1) -> bool:
    """Do tasks wait in `queues` for a free worker process? A play yields then. `below`: only
    tasks of a priority under it count (CONTINUATION_PRIORITY: a client's action or a warm-up,
    not another play's next slice)."""
    return any(_lengths(queues, below=below) or [0])


def _lengths(queues: list[str], *, below: int) -> list[int] | None:
    """The lengths of kombu's Redis lists of `queues` for each priority under `below` (one
    pipeline); None when Redis cannot be asked."""
    from kombu.transport.redis import Channel

    keys = [f"{name}{Channel.sep}{p}" if p else name for name in queues for p in range(below)]  # kombu's lists
    try:
        with _shared_redis().pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.llen(key)
            return list(pipe.execute())
    except Exception:
        return None


def _redis() -> Any:
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


_clients: dict[str, Any] = {}


def _shared_redis() -> Any:
    """One client (and connection pool) per process and Redis URL, for the frequent lookups."""
    import redis

    url = settings.REDIS_URL
    found = _clients.get(url)
    if found is None:
        found = _clients[url] = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    return found


def warm(run_id: int) -> None:
    """Have a worker build the run's engine now (action index 0: no action), so the first Step
    of a big run does not wait for a checkpoint restore. Best effort: without it the first
    action builds the engine, so a broker that cannot take the task now is only logged."""
    try:
        schedule(run_id, 0)
    except Exception:
        logger.warning("run %s: could not queue the engine warm-up", run_id, exc_info=True)


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
