"""What the modelled release leaves out of a run's scenario, as the engine said when it started.

The engine lists it in the run's `run_started` event (`notes`, e.g. device claims under v1.30,
whose DynamicResourceAllocation gate is off): the run page says it at the top and the Devices
panel says why every device reads free, instead of GPU pods silently landing on a CPU node.
"""

from __future__ import annotations

from typing import Any


def run_version_notes(*, run: Any) -> list[str]:
    """The engine's notes for this run (empty when the release simulates the whole scenario)."""
    started = run.events.filter(type="run_started").values_list("data", flat=True).first()
    return [str(n) for n in (started or {}).get("notes") or []]


def dra_not_simulated(notes: list[str]) -> bool:
    """Whether the notes say the run's device claims are not simulated."""
    return any("Dynamic Resource Allocation" in n for n in notes)
