"""What the modelled release leaves out of a run's scenario, as the engine said when it started.

The engine lists it in the run's `run_started` event (`notes`, e.g. device claims under v1.30,
whose DynamicResourceAllocation gate is off): the run page says it at the top and the Devices
panel says why every device reads free, instead of GPU pods silently landing on a CPU node.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

# A run's run_started event never changes (it is the run's first and stays), and every page and
# live update reads it (its notes, its profiles' plugins): kept per run (by share token, unique
# for ever), the newest KEPT. Read from the database it was a query per panel and render.
KEPT = 256
_known: OrderedDict[str, dict[str, Any]] = OrderedDict()
_lock = threading.Lock()  # pages and the consumers' database threads ask at once


def run_started_data(*, run: Any) -> dict[str, Any]:
    """The run's run_started event ({} before it is stored). Shared: callers must not modify it."""
    token = getattr(run, "share_token", None)
    with _lock:
        found = _known.get(token) if token else None
    if found is not None:
        return found
    started = run.events.filter(type="run_started").values_list("data", flat=True).first()
    if started is None:
        return {}
    if token:
        with _lock:
            _known[token] = started
            while len(_known) > KEPT:
                _known.popitem(last=False)
    return started


def run_version_notes(*, run: Any) -> list[str]:
    """The engine's notes for this run (empty when the release simulates the whole scenario)."""
    return [str(n) for n in run_started_data(run=run).get("notes") or []]


def dra_not_simulated(notes: list[str]) -> bool:
    """Whether the notes say the run's device claims are not simulated."""
    return any("Dynamic Resource Allocation" in n for n in notes)
