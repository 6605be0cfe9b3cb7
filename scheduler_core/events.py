"""The engine's event stream: the contract with the UI and with `trace`.

Every step of the engine is reported as one event: a plain, JSON-serialisable dict with
`seq` (position in the run), `time` (virtual seconds), `type` (one of EVENT_TYPES) and the
type's own fields. Emission is cheap when nobody listens: callers check `sink.enabled` before
building a payload, so a headless `simulate` pays one attribute read per step.

Kubernetes Events (what `kubectl get events` shows: Scheduled, FailedScheduling, Preempted,
TaintManagerEviction) are one type among them: "k8s_event".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SCHEMA_VERSION = 1

# type -> what it reports (fields beyond seq/time/type)
EVENT_TYPES: dict[str, str] = {
    "run_started": "seed, nodes, pods, profiles",
    "cluster_action": "action, params: a user/timeline action applied (addPod, cordon, ...)",
    "queue_move": "pod, from, to (activeQ|backoffQ|unschedulable|gated|none), reason, event",
    "cycle_started": "cycle, pod, profile, attempts",
    "prefilter": "cycle, pod, plugin, code, reasons, node_names (narrowing) ",
    "filter_verdicts": "cycle, pod, nodes (evaluation order), verdicts {node: {plugin: verdict}}, "
                       "not_evaluated [nodes], feasible, num_to_find, start_index",
    "nominated_node_tried": "cycle, pod, node, feasible",
    "scores": "cycle, pod, plugins {plugin: {node: {raw, normalized, weighted}}}, totals {node: total}",
    "selected": "cycle, pod, node, score, ties [nodes with the top score]",
    "extension_point": "cycle, pod, point (Reserve|Permit|PreBind|Bind|PostBind|Unreserve), plugin, code, reasons",
    "assumed": "pod, node",
    "forgotten": "pod, node",
    "bound": "pod, node",
    "permit_wait": "pod, node, plugin, timeout",
    "extender_call": "cycle, pod, extender (its urlPrefix), verb (filter|prioritize|preempt|bind), url, "
                     "latency_ms (wall time of the recorded call), replayed (answered from the transcript), "
                     "ok, error (upstream's error text, or null), ignorable (an error is then skipped), "
                     "changed: filter {passed [nodes], removed [nodes], failed {node: reason}, "
                     "failedAndUnresolvable {node: reason}}; prioritize {scores {node: 0..10}, "
                     "weighted {node: score x weight x 10}, weight}; preempt {removed_nodes [nodes], "
                     "removed_victims {node: [pod keys]}, candidates {node: [pod keys]}}; bind {node}",
    "postfilter": "cycle, pod, plugin, code, reasons, nominated_node",
    "preemption": "cycle, pod, candidates [{node, victims, num_pdb_violations}], chosen, why",
    "victim_deleted": "pod, preemptor, node",
    "nominated": "pod, node (empty string clears)",
    "eviction_scheduled": "pod, node, at, taints",
    "eviction_cancelled": "pod, node",
    "pod_terminating": "pod, by, until: a deleted pod's grace period (graceful termination option)",
    "pod_deleted": "pod, by",
    "k8s_event": "eventType (Normal|Warning), reason, object, message",
    "clock": "from, to",
    "settled": "settled, pending",
}


class EventSink:
    """Collects events; `enabled` is False when no one listens (headless simulate)."""

    __slots__ = ("enabled", "events", "_seq", "_clock", "_listeners")

    def __init__(self, clock: Callable[[], float], enabled: bool = True) -> None:
        self.enabled = enabled
        self.events: list[dict[str, Any]] = []
        self._seq = 0
        self._clock = clock
        self._listeners: list[Callable[[dict[str, Any]], None]] = []

    def __getstate__(self) -> dict[str, Any]:
        """Checkpoints keep the sequence counter, not the events already delivered (their
        owner stores them) nor the listeners (they belong to whoever watches this process)."""
        return {"enabled": self.enabled, "events": [], "_seq": self._seq, "_clock": self._clock,
                "_listeners": []}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)

    def subscribe(self, fn: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.append(fn)
        self.enabled = True

    def emit(self, type_: str, **fields: Any) -> None:
        """Record one event. Call only when `enabled` (callers guard to keep the hot path cheap)."""
        self._seq += 1
        ev = {"seq": self._seq, "time": self._clock(), "type": type_}
        ev.update(fields)
        self.events.append(ev)
        for fn in self._listeners:
            fn(ev)

    @property
    def seq(self) -> int:
        return self._seq
