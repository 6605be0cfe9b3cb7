"""Plugin interfaces for every extension point (upstream `framework/interface.go`).

A plugin is a class with a `name` and a constructor `(args, handle)`; it takes part in each
extension point whose base class it inherits. Verdicts are `Status | None` (None = Success).
The framework runtime (`scheduler_core.framework.runtime`) calls them in upstream's order:

    PreEnqueue -> QueueSort -> PreFilter -> Filter -> PostFilter -> PreScore -> Score
    (-> NormalizeScore) -> Reserve -> Permit -> PreBind -> Bind -> PostBind (Unreserve on failure)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import (
    ClusterEvent,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    QueuedPodInfo,
)

if TYPE_CHECKING:
    from scheduler_core.framework.node_to_status import NodeToStatus

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = (1 << 63) - 1

# A queueing hint function: (pod, old_obj, new_obj) -> QueueingHint.QUEUE or .SKIP.
QueueingHintFn = Callable[[Pod, Any, Any], int]


@dataclass
class ClusterEventWithHint:
    event: ClusterEvent
    queueing_hint_fn: QueueingHintFn | None = None  # None: always Queue


class PluginArgsError(ValueError):
    """Invalid pluginConfig args; the message names the field and why."""


class SharedLister(Protocol):
    """The per-cycle snapshot plugins read (upstream SharedLister / NodeInfoLister)."""

    def list(self) -> list[NodeInfo]: ...  # every node, in node-tree order
    def have_pods_with_affinity_list(self) -> list[NodeInfo]: ...
    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]: ...
    def get(self, node_name: str) -> NodeInfo | None: ...


class ClusterLister(Protocol):
    """Read access to API objects other than nodes and pods' placements."""

    def namespace_labels(self, namespace: str) -> dict[str, str]: ...
    def pdbs(self) -> list[Any]: ...  # list[PodDisruptionBudget]
    def workload_selectors(self, namespace: str) -> list[Any]: ...  # list[WorkloadSelector]
    def get_pod(self, namespace: str, name: str) -> Pod | None: ...


class Handle(Protocol):
    """What plugins may use from the framework (upstream framework.Handle)."""

    snapshot: SharedLister
    cluster: ClusterLister
    rng: Random

    def now(self) -> float: ...
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    # --- used by preemption (DefaultPreemption / preemption.Evaluator) ---
    extenders: list[Any]  # configured extenders; preemption calls process_preemption on them
    events_enabled: bool  # False: skip building UI event payloads

    def emit(self, event_type: str, **fields: Any) -> None: ...  # a UI event (scheduler_core.events.recorder)
    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None: ...
    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None: ...
    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None: ...
    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None: ...
    def clear_nominated_node_name(self, pod: Pod) -> None: ...


class Plugin:
    name: str = ""

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None) -> None:
        self.args = args or {}
        self.handle = handle


class EnqueueExtensions:
    def events_to_register(self) -> list[ClusterEventWithHint]:
        raise NotImplementedError


class PreEnqueuePlugin(Plugin):
    def pre_enqueue(self, pod: Pod) -> Status | None:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    # Optional: the queue's whole order as one function (`less` both ways, then the order the
    # timestamps were taken in), for the heap to call directly; None: the queue composes it.
    total_less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] | None = None

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise NotImplementedError


class PreFilterExtensions(Protocol):
    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None: ...

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None: ...


class PreFilterPlugin(Plugin):
    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    # True when `filter` only reads (it writes nothing into the CycleState or elsewhere that a
    # later point reads): the fast walk may then ask it about nodes past the walk's stop point
    # and drop those answers. A plugin that keeps per-node results (VolumeBinding's volumes,
    # DynamicResources' allocations) or one not known to keep none (out of tree) leaves False.
    filter_reads_only: bool = False

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise NotImplementedError

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
        """`filter` on every node, in order (the framework's batched filter walk calls this).
        Plugins on the hot path override it to skip the per-node call where the answer is
        obviously Success; the result must equal calling `filter` on each node."""
        f = self.filter
        return [f(state, pod, ni) for ni in nodes]


@dataclass
class PostFilterResult:
    nominated_node_name: str = ""


class PostFilterPlugin(Plugin):
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status_map: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin):
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        raise NotImplementedError


class ScoreExtensions(Protocol):
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None: ...

    # Optional: `normalize_score_values(state, pod, scores: list[int]) -> Status | None`, the same
    # normalisation on the bare scores in node order (in place); the framework prefers it when a
    # plugin defines it, which saves building a NodeScore per node.


class ScorePlugin(Plugin):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        raise NotImplementedError

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        """Score every node, in order: (raw scores, None), or (None, the first non-success status).

        The framework calls this once per cycle instead of `score` per node; plugins on the hot
        path override it with a loop free of per-node call overhead. It must give exactly what
        calling `score` on each node would (scores are per node, independent of each other)."""
        out: list[int] = []
        score = self.score
        for ni in nodes:
            s, st = score(state, pod, ni)
            if st is not None and st.code != Code.SUCCESS:
                return None, st
            out.append(s)
        return out, None

    def score_extensions(self) -> ScoreExtensions | None:
        return None


class ReservePlugin(Plugin):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Returns (status, timeout seconds); a Wait status parks the pod until allowed,
        rejected or timed out on the virtual clock."""
        raise NotImplementedError


class PreBindPlugin(Plugin):
    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Skip when the plugin has nothing to do (upstream v1.34+)."""
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError
