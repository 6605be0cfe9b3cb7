"""The engine a worker built while preparing a big scenario's start, kept for that start's run.

A prepared start (services/runs/prepare.py) is computed by a worker through the same Engine a
run uses: the scenario loaded, frame 0 described, checkpoint 0 taken. It used to drop that
engine, and the run started from the start later had its engine built again by its warm-up:
checkpoint 0 restored and every pod described anew (~7 s of CPU at 5,000 x 150,000, a minute on
a loaded machine), which the run's first Step waited for. Now the worker keeps the latest one
(per process, keyed by the start's `content_key`) and records its home queue, so the run's
warm-up is sent to that worker, which hands the engine over (`adopt`) instead of rebuilding it.

Only at the run's frame 0 and for the same content; anything else (another worker, a later
step, a start computed in a request) rebuilds from the checkpoint as before. The engine handed
over is in the state checkpoint 0 holds (the start's events taken, its frame stored by the
start), so the run goes on exactly as a restored engine would (tests/web/services/runs/
test_prepared_engine.py steps both and compares their events).
"""

from __future__ import annotations

import logging
import threading

from playground.infra import redis_client
from playground.models import Run
from playground.services.runs.engine import Engine
from playground.services.runs.start_content import content_key

logger = logging.getLogger(__name__)

HOME_TTL = 3600  # s the worker holding a prepared engine is remembered for its content

_lock = threading.Lock()
_kept: tuple[str, Engine] | None = None


def _home_key(content: str) -> str:
    return f"playground:prepared-engine:{content}"


def keep(content: str, engine: Engine, home: str | None) -> None:
    """Keep `engine` (just computed for the start with this content) in this process, in place
    of any kept before; `home`: this worker's own queue, where that start's runs should warm."""
    global _kept
    engine.frames, engine.events, engine.pending_rows = [], [], None  # the start stores them
    engine.checkpoint_due = False  # checkpoint 0 is the start's
    with _lock:
        _kept = (content, engine)
    if home:
        try:
            redis_client.shared().set(_home_key(content), home, ex=HOME_TTL)
        except Exception:
            logger.warning("could not record the worker holding a prepared engine")


def home_for(content: str) -> str | None:
    """The home queue of the worker that kept the engine of the start with this content."""
    try:
        found = redis_client.shared().get(_home_key(content))
    except Exception:
        return None
    return found.decode() if isinstance(found, bytes) else found


def adopt(run: Run) -> Engine | None:
    """The kept engine, made `run`'s, when `run` is at its frame 0 and was started from the
    start it was computed for (None otherwise; a kept engine of another content stays)."""
    global _kept
    with _lock:
        kept = _kept
    if kept is None or run.head_step != 0:
        return None
    content, engine = kept
    if content_key(run.scenario_yaml, run.seed, run.kubernetes_version, run.feature_gates) != content:
        return None
    if engine.sim.sink.seq != run.last_seq or engine.sim.sink.events:
        return None
    with _lock:
        if _kept is not kept:  # another thread took it
            return None
        _kept = None
    from playground.services.extender_access import web_policy

    engine.sim.extender_transcript.policy = web_policy()  # as a rebuild sets it
    engine.run_id, engine.token = run.pk, run.share_token
    engine.step = engine.stored_step = 0
    engine.stored_seq = run.last_seq
    return engine


def clear() -> None:
    """Drop the kept engine (tests; a worker that wants the memory back)."""
    global _kept
    with _lock:
        _kept = None
