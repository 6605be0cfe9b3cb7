"""Notes on gate names that Kubernetes v1.36 or v1.37 added, removed or folded into another.

A learner holding a v1.37 cluster passes the gates that cluster has. v1.35.4's own validation
(`scheduler_core.featuregate.validate`) stays as upstream words it: a gate v1.35.4 never had is
"unrecognized", GangScheduling is accepted. These notes come beside that verdict, never instead
of it, and name what the gate is in v1.37 (facts: `scheduler_core.api.newer_versions`).
"""

from __future__ import annotations

from collections.abc import Iterable

from scheduler_core.api.newer_versions import NEWER_GATES, SIMULATED_VERSION

__all__ = ["gate_names", "gate_notes"]

_BY_NAME = {g.name: g for g in NEWER_GATES}


def gate_names(value: str | None) -> list[str]:
    """The gate names of an "A=true,B=false" text, malformed pairs included (their names are
    still worth a note; the validation says what is wrong with them)."""
    return [part.split("=", 1)[0].strip() for part in (value or "").split(",") if part.strip()]


def gate_notes(names: Iterable[str]) -> list[str]:
    """One line per named gate that v1.36 or v1.37 changed, in the order given, each once."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        gate = _BY_NAME.get(name)
        if gate is None or name in seen:
            continue
        seen.add(name)
        out.append(f"feature gate {name}: {gate.note} ({gate.source}); the playground simulates "
                   f"{SIMULATED_VERSION}")
    return out
