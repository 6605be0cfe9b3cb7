"""Feature gates per modelled Kubernetes version (upstream pkg/features/kube_features.go).

A run models one kube-scheduler version. Everything that differs between the versions the
playground offers is a named gate here, looked up by the code that behaves differently: the
engine never compares version strings. Upstream's own gates keep upstream's names (as snake
case); behaviour changes that upstream made without a gate get a descriptive name, with the
release that changed them in its docstring.

| gate                                   | v1.30 | v1.35 | what it switches                                  |
|----------------------------------------|-------|-------|---------------------------------------------------|
| scheduler_queueing_hints               | off   | on    | per-plugin queueing hints, in-flight events       |
| scheduler_async_preemption             | off   | on    | victims deleted outside the scheduling cycle      |
| scheduler_pop_from_backoff_q           | off   | on    | pop from backoffQ when activeQ is empty           |
| dynamic_resource_allocation            | off   | on    | DynamicResources in the default profile           |
| opportunistic_batching                 | off   | on    | reuse of the previous pod's scores (hinted node)  |
| taint_toleration_single_reason         | off   | on    | "untolerated taint(s)" instead of "{key: value}"  |
| insufficient_resource_unresolvable     | off   | on    | request above allocatable is unresolvable         |
| prefilter_result_reasons               | off   | on    | PreFilterResult-excluded nodes get a reason       |
| node_score_heap_tie_break              | off   | on    | first heap pop instead of reservoir sampling      |
| volume_binding_eligible_nodes          | on    | off   | VolumeBinding PreFilterResult from bound local PVs |
"""

from __future__ import annotations

import dataclasses
from typing import Any

DEFAULT_KUBERNETES_VERSION = "v1.35"


@dataclasses.dataclass(frozen=True)
class FeatureGates:
    """The switches one modelled version sets. Frozen: a run's gates never change."""

    version: str
    # Upstream feature gates.
    scheduler_queueing_hints: bool
    """SchedulerQueueingHints (beta but off in v1.30, GA in v1.34): plugins' hints decide which
    events requeue a pod; events received while a pod is in flight are replayed for it. Off:
    any event a rejecting plugin registered for requeues it, and a pod that failed after any
    move request goes to backoff (moveRequestCycle)."""
    scheduler_async_preemption: bool
    """SchedulerAsyncPreemption (beta, on by default since v1.33): victims are deleted by a
    goroutine (prepareCandidateAsync) while the preemptor is held back at PreEnqueue."""
    scheduler_pop_from_backoff_q: bool
    """SchedulerPopFromBackoffQ (beta, on since v1.33): an idle scheduler pops from backoffQ."""
    dynamic_resource_allocation: bool
    """DynamicResourceAllocation (alpha and off in v1.30, GA in v1.34): the DynamicResources
    plugin is in the default profile, and its PostFilter text joins every FailedScheduling."""
    opportunistic_batching: bool
    """OpportunisticBatching (v1.35): a pod with the same signature as the previous one may
    reuse its scores and try the hinted node first."""
    # Behaviour changes upstream made without a gate.
    taint_toleration_single_reason: bool
    """Changed after v1.30: TaintToleration's Filter says "node(s) had untolerated taint(s)" for every node;
    before, "node(s) had untolerated taint {KEY: VALUE}" naming the node's first such taint."""
    insufficient_resource_unresolvable: bool
    """Changed after v1.30 (InsufficientResource.Unresolvable): a request larger than the node's whole allocatable makes NodeResourcesFit return
    UnschedulableAndUnresolvable, so preemption skips the node ("not helpful")."""
    prefilter_result_reasons: bool
    """Changed after v1.30: nodes a PreFilterResult excludes share an absent-nodes status naming the
    plugins ("didn't satisfy plugin(s) [...]") and preemption skips them. Before, they were
    in no status at all: only the 0/N total counted them, and preemption dry-ran them."""
    node_score_heap_tie_break: bool
    """Changed after v1.30, selectHost: the winner is the first pop of the score heap (random only for
    extender-scored nodes). Before: reservoir sampling among the equal top scores, drawing
    from the run's seeded RNG."""
    overrides: tuple[tuple[str, bool], ...] = ()
    """The run's `--feature-gates` settings that differ from the version's defaults, by upstream
    name in name order (validated by scheduler_core.featuregate); empty for a default run."""

    def enabled(self, gate: str) -> bool:
        """Upstream gate `gate` (e.g. "GangScheduling") as this run has it: its override, else
        the modelled version's default."""
        for name, value in self.overrides:
            if name == gate:
                return value
        from scheduler_core.featuregate import default_of

        return default_of(gate, self.version)

    volume_binding_eligible_nodes: bool = False
    """v1.27 to v1.30 (removed later): VolumeBinding's PreFilter narrows the nodes to those a bound
    local PV's node affinity names by hostname (one term, one `kubernetes.io/hostname In`
    expression), as a PreFilterResult."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_V1_35 = FeatureGates(
    version="v1.35",
    scheduler_queueing_hints=True,
    scheduler_async_preemption=True,
    scheduler_pop_from_backoff_q=True,
    dynamic_resource_allocation=True,
    opportunistic_batching=True,
    taint_toleration_single_reason=True,
    insufficient_resource_unresolvable=True,
    prefilter_result_reasons=True,
    node_score_heap_tie_break=True,
)

_V1_30 = FeatureGates(
    version="v1.30",
    scheduler_queueing_hints=False,
    scheduler_async_preemption=False,
    scheduler_pop_from_backoff_q=False,
    dynamic_resource_allocation=False,
    opportunistic_batching=False,
    taint_toleration_single_reason=False,
    insufficient_resource_unresolvable=False,
    prefilter_result_reasons=False,
    node_score_heap_tie_break=False,
    volume_binding_eligible_nodes=True,
)

_BY_VERSION = {g.version: g for g in (_V1_35, _V1_30)}
SUPPORTED_VERSIONS: tuple[str, ...] = tuple(_BY_VERSION)


class UnknownVersionError(ValueError):
    """A Kubernetes version the engine does not model."""


def gates_for(version: str | None) -> FeatureGates:
    """The gates of `version` ("v1.35", "v1.30"; "1.30" and "v1.30.6" are accepted too)."""
    if version is None:
        return _V1_35
    v = version.strip()
    if not v.startswith("v"):
        v = "v" + v
    parts = v.split(".")
    if len(parts) >= 2:
        v = ".".join(parts[:2])
    try:
        return _BY_VERSION[v]
    except KeyError:
        raise UnknownVersionError(
            f"unsupported Kubernetes version {version!r} (supported: {', '.join(SUPPORTED_VERSIONS)})"
        ) from None


DEFAULT_GATES = _V1_35

# The fields above that are upstream gates a run may set with --feature-gates.
_FIELD_OF_GATE = {
    "SchedulerQueueingHints": "scheduler_queueing_hints",
    "SchedulerAsyncPreemption": "scheduler_async_preemption",
    "SchedulerPopFromBackoffQ": "scheduler_pop_from_backoff_q",
    "DynamicResourceAllocation": "dynamic_resource_allocation",
    "OpportunisticBatching": "opportunistic_batching",
}


def with_overrides(gates: FeatureGates, overrides: dict[str, bool]) -> FeatureGates:
    """`gates` with a run's validated --feature-gates settings applied (the same object when
    there are none, so a default run is exactly the version's)."""
    if not overrides:
        return gates
    fields = {_FIELD_OF_GATE[k]: v for k, v in overrides.items() if k in _FIELD_OF_GATE}
    return dataclasses.replace(gates, overrides=tuple(sorted(overrides.items())), **fields)


def gates_of(handle: Any) -> FeatureGates:
    """The gates a plugin's framework handle carries (the default version's without one, as in
    unit tests that build a plugin with no handle)."""
    g = getattr(handle, "feature_gates", None)
    return g if isinstance(g, FeatureGates) else DEFAULT_GATES
