"""The live engines a worker process keeps between actions, so a step costs the step's work.

Bounded (least recently used out first) and per run, by count and by weight (nodes + pods):
thirty students' small runs stay warm in one worker, while a couple of 5,000-node engines fill it
(the most recent engine is always kept, whatever it weighs). The stored log stays the truth: an engine is
handed out only while it is exactly at the run's stored head (`head_step` and `last_seq`), so an
engine another worker has overtaken is dropped and rebuilt from the log. The run's lock makes
sure only one worker at a time moves a run on; the cache never decides anything by itself.
"""

from __future__ import annotations

import gc
import os
from collections import OrderedDict

from playground.models import Run
from playground.services.runs import prepared_engine
from playground.services.runs.engine import Engine

DEFAULT_SIZE = int(os.environ.get("PLAYGROUND_ENGINE_CACHE", "32"))
DEFAULT_WEIGHT = int(os.environ.get("PLAYGROUND_ENGINE_CACHE_WEIGHT", "30000"))  # nodes + pods of all engines
FREEZE_NODES = 1000  # engines of clusters this big are moved out of the garbage collector's sight...
FREEZE_WEIGHT = 5000  # ...and so are the engines of a cache holding this much (nodes + pods) in all


def _nodes(engine: Engine) -> int:
    return len((engine.view or {}).get("nodes") or [])


def _weight(engine: Engine) -> int:
    view = engine.view or {}
    return 1 + len(view.get("nodes") or ()) + len(view.get("pods") or ())


class EngineCache:
    """At most `size` engines weighing `weight` together, keyed by run; `hits`/`rebuilds`/`stale`
    count what happened."""

    def __init__(self, size: int = DEFAULT_SIZE, *, weight: int = DEFAULT_WEIGHT, freeze_gc: bool = False) -> None:
        """`freeze_gc`: after building a big engine, `gc.freeze()` it (see `_frozen`)."""
        self.size = max(1, size)
        self.weight = max(1, weight)
        self.freeze_gc = freeze_gc
        self._frozen = False
        self._engines: OrderedDict[int, Engine] = OrderedDict()
        self.hits = 0
        self.rebuilds = 0
        self.stale = 0

    def __len__(self) -> int:
        return len(self._engines)

    def __contains__(self, run_id: int) -> bool:
        return run_id in self._engines

    def get(self, run: Run) -> Engine:
        """The engine at `run`'s stored head: the cached one if it is there, else rebuilt."""
        engine = self._engines.pop(run.pk, None)
        if engine is not None and fresh(engine, run):
            self.hits += 1
            self._engines[run.pk] = engine
            return engine
        if engine is not None:
            self.stale += 1
        self.rebuilds += 1
        # The engine this worker computed for the run's prepared start, if it has it: no restore.
        return self.put(prepared_engine.adopt(run) or Engine.rebuild(run))

    def put(self, engine: Engine) -> Engine:
        if self._engines.pop(engine.run_id, None) is not None:
            self._thaw()
        self._engines[engine.run_id] = engine
        while len(self._engines) > 1 and (
            len(self._engines) > self.size or self.weight_held() > self.weight
        ):
            self._engines.popitem(last=False)
            self._thaw()
        if self.freeze_gc and (_nodes(engine) >= FREEZE_NODES or self.weight_held() >= FREEZE_WEIGHT):
            # A 5,000-node engine is millions of long-lived objects; every full collection walks
            # them all (0.5 s pauses in the middle of a step, several a minute while playing).
            # So do a dozen 100-node x 1,000-pod engines together (0.26 s a collection, two or
            # three in 40 Steps of each). Frozen objects are skipped by the collector (reference
            # counting still frees them; cycles among them wait for the next thaw).
            gc.freeze()
            self._frozen = True
        return engine

    def weight_held(self) -> int:
        """The nodes and pods of every engine held (what the cache's `weight` bounds)."""
        return sum(_weight(e) for e in self._engines.values())

    def drop(self, run_id: int) -> None:
        if self._engines.pop(run_id, None) is not None:
            self._thaw()

    def _thaw(self) -> None:
        """An engine left: give what was frozen back to the collector, so a dropped engine's
        reference cycles are collected (the next big engine freezes again)."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False


def fresh(engine: Engine, run: Run) -> bool:
    """Is `engine` exactly at the run's stored log (nothing pending, nobody went further)?"""
    return (
        not engine.dirty
        and engine.token == run.share_token
        and engine.stored_step == run.head_step
        and engine.stored_seq == run.last_seq
    )


ENGINES = EngineCache(freeze_gc=True)  # this worker process's engines
