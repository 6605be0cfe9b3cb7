"""Per-client quotas: what one visitor may make a shared server do in an hour, and at once.

A client is its session and its address; each quota is counted for both, so clearing cookies
does not reset it, and an address gets PLAYGROUND_QUOTA_ADDRESS_FACTOR times a session's share
(a classroom behind one NAT address is thirty sessions). Staff users are exempt. A setting of
0 turns that quota off.

- PLAYGROUND_SCENARIOS_PER_HOUR: scenarios created (new, uploaded, forked);
- PLAYGROUND_RUNS_PER_HOUR: runs started (from a scenario, or forked from a run);
- PLAYGROUND_RUNS_PLAYING: runs playing at once;
- PLAYGROUND_NODE_STEPS_PER_HOUR: simulation work, nodes x steps (a step of a 500-node run
  costs 500). Checked when a step or play is asked for, and charged by the worker before
  each step it executes, so a long play stops when the client's hour is spent.

The hourly counters are `limits` sliding-window counters in Redis (shared by every web process
and worker); each quota is checked before the work it limits. When Redis cannot be reached the
request is let through: the work it would start goes through the same Redis and cannot happen.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)


class QuotaExceeded(Exception):
    """A quota is spent: `message` says which, naming its setting, and when it frees up."""

    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message)
        self.message = message
        self.setting = setting


@dataclass(frozen=True)
class Client:
    """Who is asking: `keys` are the session's ("s:...") and the address's ("ip:...")."""

    session: str
    address: str
    exempt: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k in (self.session, self.address) if k)

    def to_json(self) -> str:
        return json.dumps({"session": self.session, "address": self.address, "exempt": self.exempt})

    @classmethod
    def from_json(cls, text: str | bytes) -> Client:
        data = json.loads(text)
        return cls(session=data.get("session", ""), address=data.get("address", ""), exempt=bool(data.get("exempt")))


def client_of(request: Any) -> Client:
    """The client behind a request that is about to be counted: its session's owner token
    (given one now if it has none, as the view would: that is what owns what it creates) and
    its address."""
    from playground.ownership import actor_for_request

    user = getattr(request, "user", None)
    token = actor_for_request(request, create=True).session_token
    return Client(
        session=f"s:{token}" if token else "",
        address=f"ip:{request.META.get('REMOTE_ADDR', '?')}",
        exempt=bool(user is not None and user.is_active and user.is_staff),
    )


# ---- the counters --------------------------------------------------------------------------------

_limiters: dict[str, Any] = {}


def _limiter() -> Any:
    from limits.strategies import SlidingWindowCounterRateLimiter

    from playground.infra import redis_client

    url = settings.REDIS_URL
    limiter = _limiters.get(url)
    if limiter is None:
        limiter = _limiters[url] = SlidingWindowCounterRateLimiter(redis_client.limits_storage("playground-quota", url))
    return limiter


def _limit_for(key: str, per_session: int) -> int:
    return per_session * max(1, settings.PLAYGROUND_QUOTA_ADDRESS_FACTOR) if key.startswith("ip:") else per_session


def _wait_text(item: Any, key: str, name: str) -> str:
    try:
        reset = _limiter().get_window_stats(item, name, key).reset_time
    except Exception:
        return ""
    minutes = max(1, math.ceil((reset - time.time()) / 60))
    return f" Try again in about {minutes} minute{'s' if minutes != 1 else ''}."


def _hourly(client: Client, name: str, setting: str, what: str, *, cost: int = 1, charge: bool = True) -> None:
    """Count `cost` against the hourly quota `name` for each of the client's keys (`charge`
    False: only check that `cost` more would fit). QuotaExceeded when it does not."""
    import redis
    from limits import RateLimitItemPerHour

    per_session = int(getattr(settings, setting))
    if client.exempt or per_session <= 0:
        return
    for key in client.keys:
        limit = _limit_for(key, per_session)
        item = RateLimitItemPerHour(limit)
        try:
            allowed = (_limiter().hit if charge else _limiter().test)(item, name, key, cost=min(cost, limit))
        except (redis.RedisError, OSError):
            logger.warning("quota %s: Redis unreachable; not counted", name)
            return
        if not allowed:
            scope = "per visitor" if key.startswith("s:") else "per network address"
            raise QuotaExceeded(
                f"Quota reached: at most {limit:,} {what} per hour {scope} ({setting})."
                + _wait_text(item, key, name),
                setting,
            )


def check_scenario_create(client: Client) -> None:
    _hourly(client, "scenarios", "PLAYGROUND_SCENARIOS_PER_HOUR", "new scenarios")


def check_run_start(client: Client) -> None:
    _hourly(client, "runs", "PLAYGROUND_RUNS_PER_HOUR", "runs started")


def check_node_steps(client: Client, run_id: int) -> None:
    """Refuse a step or play when the client has no room left for one step of this run."""
    _hourly(
        client, "node-steps", "PLAYGROUND_NODE_STEPS_PER_HOUR", "node-steps (nodes x steps) of simulation",
        cost=run_nodes(run_id), charge=False,
    )


# ---- runs playing at once ------------------------------------------------------------------------


def _playing_key(address: str) -> str:
    return f"playground:playing-at:{address}"


def check_playing(client: Client, run: Any) -> None:
    """Refuse a play when the client already has PLAYGROUND_RUNS_PLAYING runs playing (this run
    aside), counted for its session (the runs it owns) and its address (the runs played from
    it); on success the run counts for the address from now on."""
    import redis

    from playground.models import Run, RunAction

    per_session = settings.PLAYGROUND_RUNS_PLAYING
    if client.exempt or per_session <= 0:
        return
    playing = Run.objects.filter(actions__kind=RunAction.KIND_PLAY,
                                 actions__state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING])
    if run.owner_id is not None:
        mine = playing.filter(owner_id=run.owner_id)
    else:
        mine = playing.filter(owner_token=run.owner_token) if run.owner_token else playing.none()
    if mine.exclude(pk=run.pk).distinct().count() >= per_session:
        raise QuotaExceeded(
            f"Quota reached: at most {per_session} runs playing at once per visitor (PLAYGROUND_RUNS_PLAYING). "
            "Pause one of your runs first.",
            "PLAYGROUND_RUNS_PLAYING",
        )
    try:
        store = _redis()
        key = _playing_key(client.address)
        ids = {int(i) for i in store.smembers(key)}
        still = set(playing.filter(pk__in=ids).values_list("pk", flat=True).distinct())
        if ids - still:
            store.srem(key, *(ids - still))
        limit = _limit_for(client.address, per_session)
        if len(still - {run.pk}) >= limit:
            raise QuotaExceeded(
                f"Quota reached: at most {limit} runs playing at once per network address "
                "(PLAYGROUND_RUNS_PLAYING). Pause a run first.",
                "PLAYGROUND_RUNS_PLAYING",
            )
        store.sadd(key, run.pk)
        store.expire(key, 24 * 3600)
    except (redis.RedisError, OSError):
        logger.warning("quota PLAYGROUND_RUNS_PLAYING: Redis unreachable; address not counted")


# ---- the worker's side: charging node-steps ------------------------------------------------------


def _redis() -> Any:
    """The process's Redis client (one connection pool per process and Redis URL)."""
    from playground.infra import redis_client

    return redis_client.shared()


def _client_key(run_id: int) -> str:
    return f"playground:run-client:{run_id}"


def _nodes_key(run_id: int) -> str:
    return f"playground:run-nodes:{run_id}"


def remember_client(run_id: int, client: Client) -> None:
    """The client who asked for the run's latest step or play: the worker charges it."""
    import redis

    try:
        _redis().set(_client_key(run_id), client.to_json(), ex=24 * 3600)
    except (redis.RedisError, OSError):
        logger.warning("run %s: could not remember who asked (its steps are not charged)", run_id)


def run_nodes(run_id: int) -> int:
    """The run's node count as its worker last saw it (1 before it was seen)."""
    try:
        value = _redis().get(_nodes_key(run_id))
    except Exception:
        return 1
    return max(1, int(value)) if value else 1


class Charger:
    """The worker's meter for one run: `charge(nodes)` before each step it executes. Returns
    None, or the QuotaExceeded message when the client's hour is spent (the step is not
    executed). The client is read once per action (whoever asked last)."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.client: Client | None = None
        self.nodes_seen = -1
        try:
            raw = _redis().get(_client_key(run_id))
            self.client = Client.from_json(raw) if raw else None
        except Exception:
            self.client = None

    def charge(self, nodes: int) -> str | None:
        nodes = max(1, nodes)
        if nodes != self.nodes_seen:
            self.nodes_seen = nodes
            try:
                _redis().set(_nodes_key(self.run_id), nodes, ex=24 * 3600)
            except Exception:
                pass
        if self.client is None:
            return None
        try:
            _hourly(self.client, "node-steps", "PLAYGROUND_NODE_STEPS_PER_HOUR",
                    "node-steps (nodes x steps) of simulation", cost=nodes)
        except QuotaExceeded as error:
            return error.message
        return None
