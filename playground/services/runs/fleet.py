"""The workers' presence and health, as the runs' dispatch sees them.

Engine affinity: a worker process keeps the engines of the runs it executed (cache.py); a run's
next task goes to that process's own queue ("home") while the process is alive, so it finds
its engine in memory instead of rebuilding it from a checkpoint (300 nodes: 0.2 s, 5,000
nodes: seconds). Every worker consumes its home queue besides the shared ones (tasks/runs.py)
and says every second that it is alive (`beat_alive`); while it does long work (a big
scenario's start) it is marked `busy`, and its runs go to any worker meanwhile.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from playground.infra import redis_client
from playground.infra.queues import CONTINUATION_PRIORITY, lengths

logger = logging.getLogger(__name__)

HOME_TTL = 3600
ALIVE_TTL = 3.0  # a worker's alive key outlives its last beat by this long (it beats every second)
ALIVE_PREFIX = "playground:worker-alive:"
BUSY_TTL = 600  # s a busy mark outlives a worker that died while holding it
NEXT_HOME_KEY = "playground:next-home"
HOME_BACKLOG = 3  # client tasks (runs: one waiting task each) in a worker's own queue before any worker will do


def _home_key(run_id: int) -> str:
    return f"playground:run-home:{run_id}"


def _alive_key(queue: str) -> str:
    return f"{ALIVE_PREFIX}{queue}"


def _busy_key(queue: str) -> str:
    return f"playground:worker-busy:{queue}"


def set_home(run_id: int, queue: str) -> None:
    """The run's engine now lives in the worker process that consumes `queue`."""
    try:
        redis_client.shared().set(_home_key(run_id), queue, ex=HOME_TTL)
    except Exception:
        logger.warning("run %s: could not record its worker", run_id)


def beat_alive(queue: str, serves: list[str] | tuple[str, ...] = ()) -> None:
    """The worker consuming its home `queue` is alive; `serves`: the shared queues it also takes
    tasks from (where `next_home` may place a run whose tasks go to one of them)."""
    redis_client.shared().set(_alive_key(queue), ",".join(serves) or "1", px=int(ALIVE_TTL * 1000))


def alive_queues(client: Any = None) -> list[str]:
    """The home queues of the worker processes alive now (the metrics list their depths)."""
    client = client or redis_client.shared()
    return [(key.decode() if isinstance(key, bytes) else key)[len(ALIVE_PREFIX):]
            for key in client.scan_iter(match=_alive_key("*"), count=100)]


def home_of(run_id: int) -> str | None:
    """The home queue of the run's engine, if that worker process is alive and not busy with
    long work (a big scenario's start: seconds) that its queue would wait behind; otherwise
    None: any worker takes the task and rebuilds the engine (0.2 s at 300 nodes)."""
    try:
        client = redis_client.shared()
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


@contextlib.contextmanager
def busy(queue: str | None) -> Iterator[None]:
    """Mark the worker process consuming `queue` busy with long work for the block: runs whose
    engine it holds are sent to any worker meanwhile (`home_of`)."""
    if not queue:
        yield
        return
    with contextlib.suppress(Exception):
        redis_client.shared().set(_busy_key(queue), 1, ex=BUSY_TTL)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            redis_client.shared().delete(_busy_key(queue))


def any_worker_alive() -> bool:
    """Is any worker process beating its alive key (so queued work will be done)?"""
    try:
        return any(True for _ in redis_client.shared().scan_iter(match=_alive_key("*"), count=100))
    except Exception:
        return False


def next_home(shared: str) -> str | None:
    """Where a run without a live engine gets one built (and keeps it): among the live workers
    that take tasks from the run's `shared` queue, the one with the fewest clients' tasks
    waiting, the workers taking turns among equals. A class starting its runs together so fills
    every worker alike, instead of whichever worker happened to take their first tasks (runs had
    settled 7 to 5, 8 to 4 or 11 to 1 on two workers, and the worker with more runs does more
    steps while the other waits). None: no such worker is alive and free (the shared queue then)."""
    try:
        client = redis_client.shared()
        keys = sorted(client.scan_iter(match=_alive_key("*"), count=100))
        homes = [key.decode()[len(ALIVE_PREFIX):] for key, serves in zip(keys, client.mget(keys) if keys else [], strict=True)
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


def waiting_in(queue: str) -> int:
    """How many clients' tasks (actions and warm-ups, not a play's next slice: that one always
    waits behind them) wait in `queue`; 0 when Redis cannot be asked.

    Engine affinity must not cost capacity: a run's tasks go to its engine's worker, and while
    that worker works through a backlog of them another worker could be idle with nothing in
    the shared queue (a class's runs had settled 7 to 5 on two workers, so the two together
    were at most 12/7 = 1.7 times one). Past HOME_BACKLOG waiting tasks the next goes to the
    shared queue, where any free worker takes it, restoring the run's engine from its
    checkpoint (a fraction of a second at a few hundred nodes) and becoming its home. A run has
    at most one task waiting (`dispatch.schedule`), so this counts runs, not presses of Step."""
    return sum(lengths([queue], below=CONTINUATION_PRIORITY) or [0])
