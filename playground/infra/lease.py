"""A run's lease: which worker moves the run on right now, and proof that it is still alive.

One Redis key per run (`playground:run-lock:<id>`) holds the holder's random token and expires
LEASE_TTL seconds after it was last renewed. A heartbeat thread in the holder renews it every
LEASE_TTL / 5 s, whatever the engine is doing (a long step or a checkpoint does not starve
it for long: Python hands the GIL to a waiting thread every few milliseconds; the few calls that
hold it for seconds, a big checkpoint or restore, run under `extended`). So:

- a live worker never loses its run to another one, even in a step that takes seconds;
- a worker that dies (SIGKILL, OOM, a machine gone) stops renewing, and within LEASE_TTL the
  key is gone: the run page says "recovering" and the run is queued again
  (playground/services/run_recovery.py);
- Redis restarted empty under a live worker: the heartbeat takes the key again as soon as Redis
  answers. If another worker took the run in the meantime (it looked abandoned), this one's
  lease is `lost`: it stops before its next commit and the other one continues from the log.

The heartbeat thread never touches the database; only the worker thread commits, and it checks
`lost` first (`services/runs/units.py`: `commit`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
from collections.abc import Iterator
from typing import Any

from playground.infra import redis_client

logger = logging.getLogger(__name__)

LEASE_TTL = float(os.environ.get("PLAYGROUND_RUN_LOCK_TTL", "1"))  # seconds without a renewal
# A checkpoint or a restore of a big cluster holds the GIL for seconds at a time (pickling,
# compression: a 5,000-node checkpoint starved a thread for 2 s on a loaded machine), so the
# lease is extended to this long around them (`extended`).
LONG_WORK_TTL = 60.0

# Renew if the key still holds our token; take it again if it is gone (Redis restarted);
# report 0 if someone else holds it.
_RENEW = """
local value = redis.call('get', KEYS[1])
if value == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
elseif not value then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def key(run_id: int) -> str:
    return f"playground:run-lock:{run_id}"


def shared_client() -> Any:
    """The process's Redis client, for the frequent is-it-held checks of the run pages."""
    return redis_client.shared()


def held(run_id: int) -> bool | None:
    """Does a live worker hold the run? None: Redis cannot be asked right now."""
    import redis

    try:
        return bool(shared_client().exists(key(run_id)))
    except (redis.RedisError, OSError):
        return None


class RunLease:
    """The lease on one run, held by this process while it executes the run's actions."""

    def __init__(self, run_id: int, ttl: float = LEASE_TTL) -> None:
        self.run_id = run_id
        self.ttl_ms = max(100, int(ttl * 1000))
        self.token = uuid.uuid4().hex
        self.lost = False
        self._client = shared_client()  # the process's pool: no connection set up per action
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> bool:
        """Take the lease if nobody holds it; start renewing it. False: another worker has it."""
        if not self._client.set(key(self.run_id), self.token, nx=True, px=self.ttl_ms):
            return False
        self._thread = threading.Thread(target=self._beat, name=f"run-{self.run_id}-lease", daemon=True)
        self._thread.start()
        return True

    def renew(self) -> None:
        """Renew now (also done by the heartbeat). Sets `lost` if another worker holds the run."""
        import redis

        try:
            result = self._client.eval(_RENEW, 1, key(self.run_id), self.token, self.ttl_ms)
        except (redis.RedisError, OSError):
            return  # Redis away: nobody else can take the run either; try again on the next beat
        if result == 0 and not self.lost:
            self.lost = True
            logger.warning("run %s: another worker took the run; this one stops", self.run_id)
        elif result == 2:
            logger.info("run %s: lease taken again (Redis had lost it)", self.run_id)

    @contextlib.contextmanager
    def extended(self, seconds: float = LONG_WORK_TTL) -> Iterator[None]:
        """Hold the lease for `seconds` during work that may starve the heartbeat thread."""
        normal = self.ttl_ms
        self.ttl_ms = max(normal, int(seconds * 1000))
        self.renew()
        try:
            yield
        finally:
            self.ttl_ms = normal
            self.renew()

    def _beat(self) -> None:
        interval = self.ttl_ms / 5000
        while not self._stop.wait(interval):
            self.renew()
            if self.lost:
                return

    def release(self) -> None:
        import redis

        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        try:
            if not self.lost:
                self._client.eval(_RELEASE, 1, key(self.run_id), self.token)
        except (redis.RedisError, OSError):
            logger.warning("run %s: could not release the lease (it expires by itself)", self.run_id)
