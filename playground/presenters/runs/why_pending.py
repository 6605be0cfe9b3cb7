"""The "Why pending" page of a run: its pending pods grouped by how the scheduler failed them.

The same grouping as `simulate --why-pending` (scheduler_core.questions.why_pending, docs/why-pending.md),
read from the run's stored view and events, never from the engine: a group is the reasons of
the pods' last FailedScheduling message without their node counts; its decisive reason is the
one that rejected the most nodes in its most recent message; its rejecting plugins are those the
unschedulable queue's head lists for its pods (the stored view keeps only the queues' heads);
each group links to the cycle in which one of its pods was last tried, where the filter table
shows every node's verdict. The closest nodes (every Filter plugin asked about every node) need
the engine, so they are on the command line only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.questions.why_pending import split_reasons

EXAMPLES = 5
NOT_TRIED = "no FailedScheduling yet (gated, or waiting in the scheduling queue)"


@dataclass
class PendingGroup:
    reason: str  # the decisive reason
    reasons: list[tuple[int | None, str]]  # (nodes, reason) of the group's most recent message
    pods: list[str] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)
    last_cycle: int | None = None
    last_pod: str | None = None
    message: str | None = None

    @property
    def examples(self) -> list[str]:
        return self.pods[:EXAMPLES]

    @property
    def more(self) -> int:
        return max(0, len(self.pods) - EXAMPLES)


@dataclass
class WhyPending:
    pending: int
    groups: list[PendingGroup]


def pending_keys(view: dict[str, Any]) -> list[str]:
    """The pods pending in `view`, in creation order."""
    return [p["key"] for p in view.get("pods", []) if p.get("status") == "Pending"]


def why_pending(view: dict[str, Any], last_cycles: dict[str, int]) -> WhyPending:
    """Group the pending pods of `view`; `last_cycles`: pod key -> its last attempt's cycle."""
    plugins_of: dict[str, list[str]] = {}
    for entry in (view.get("queues") or {}).get("unschedulable", []):
        plugins_of[entry["pod"]] = list(entry.get("unschedulablePlugins") or []) + list(
            entry.get("pendingPlugins") or [])
    groups: dict[tuple[str, ...], PendingGroup] = {}
    pending = 0
    for pod in view.get("pods", []):
        if pod.get("status") != "Pending":
            continue
        pending += 1
        key, message = pod["key"], pod.get("message")
        counted = split_reasons(message) if message else []
        gkey = tuple(sorted({r for _, r in counted})) if message else (NOT_TRIED,)
        g = groups.get(gkey)
        if g is None:
            g = groups[gkey] = PendingGroup(reason=gkey[0], reasons=[(None, r) for r in gkey])
        g.pods.append(key)
        for plugin in plugins_of.get(key, []):
            if plugin not in g.plugins:
                g.plugins.append(plugin)
        cycle = last_cycles.get(key)
        if message and (g.message is None or (cycle is not None and (g.last_cycle is None or cycle >= g.last_cycle))):
            g.message = message
            if cycle is not None:
                g.last_cycle, g.last_pod = cycle, key
            g.reasons = [(n, r) for n, r in counted] or g.reasons
            g.reason = max(counted, key=lambda c: c[0])[1] if counted else g.reason
    ordered = sorted(groups.values(), key=lambda g: (-len(g.pods), g.reason))
    for g in ordered:
        g.plugins.sort()
    return WhyPending(pending=pending, groups=ordered)
