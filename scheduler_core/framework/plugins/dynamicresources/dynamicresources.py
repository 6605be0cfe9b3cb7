"""DynamicResources (DRA): allocates a pod's ResourceClaims to devices on the chosen node.

DRA is GA and enabled by default in v1.35, so the plugin is in the default profile (weight 2,
just before DefaultPreemption). The engine's pods reference no claims, which upstream handles
on a fast path: PreFilter records an empty state and returns Skip, Filter/Score/Reserve/PreBind
do nothing, and PostFilter answers Unschedulable "no new claims to deallocate" — the fragment
every default-profile FailedScheduling message carries before the preemption summary. If
PreFilter never ran (an earlier PreFilter plugin rejected the pod), PostFilter cannot read its
state and returns an Error "not found", exactly as upstream does.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PluginArgsError,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    ScorePlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from scheduler_core.framework.plugins.helper.podutil import same_pod
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    NodeScore,
    PreFilterResult,
    QueueingHint,
)

NAME = names.DYNAMIC_RESOURCES
STATE_KEY = NAME
NOT_FOUND = "not found"  # fwk.ErrNotFound, what CycleState.Read returns for a missing key


def _claims(pod: Pod) -> list:
    return getattr(pod, "resource_claims", None) or []


class _StateData:
    """Claims of the pod (always none in the engine) and per-node allocations."""

    __slots__ = ("claims", "node_allocations", "unavailable_claims")

    def __init__(self) -> None:
        self.claims: list = []
        self.node_allocations: dict[str, Any] = {}
        self.unavailable_claims: set[int] = set()

    def clone(self) -> _StateData:
        return self


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin, ScorePlugin,
                       ReservePlugin, PreBindPlugin, EnqueueExtensions):
    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        a = args or {}
        # DRASchedulerFilterTimeout is beta (on) in v1.35, DRADeviceBindingConditions and
        # DRAResourceClaimDeviceStatus are not both on: a bindingTimeout is refused.
        errs = []
        ft = a.get("filterTimeout")
        if isinstance(ft, str) and ft.startswith("-"):
            errs.append(f'filterTimeout: Invalid value: "{ft}": must be zero or positive')
        if a.get("bindingTimeout") is not None:
            errs.append("bindingTimeout: Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus "
                        "feature gate is disabled")
        if errs:
            raise PluginArgsError(f"{NAME}: " + (errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"))

    def pre_enqueue(self, pod: Pod) -> Status | None:
        # All referenced claims exist (there are none).
        return None

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        s = _StateData()
        state.write(STATE_KEY, s)
        if not s.claims:
            return None, SKIP
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        return None

    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status_map: Any) -> tuple[PostFilterResult | None, Status | None]:
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status.error(NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, "no new claims to deallocate")
        return None, Status(Code.UNSCHEDULABLE, "still not schedulable")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        s = state.get(STATE_KEY)
        if s is None:
            return 0, Status.error(NOT_FOUND)
        return 0, None

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        if state.get(STATE_KEY) is None:
            return None, Status.error(NOT_FOUND)
        return [0] * len(nodes), None

    def score_extensions(self) -> DynamicResources:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_score_values(self, state: CycleState, pod: Pod, scores: list[int]) -> Status | None:
        return default_normalize_score_values(MAX_NODE_SCORE, False, scores)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        if not s.claims:
            return SKIP
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = state.get(STATE_KEY)
        if s is None:
            return Status.error(NOT_FOUND)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(
                EventResource.NODE,
                ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, add_update),
                                 self.is_schedulable_after_claim_change),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                                 self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
        ]

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> int:
        """A deallocated claim may free devices for anyone; otherwise only the pod's own claims."""
        if old is not None and getattr(old, "allocation", None) is not None and \
                getattr(new, "allocation", None) is None:
            return QueueingHint.QUEUE
        return QueueingHint.SKIP

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Pod) -> int:
        return QueueingHint.QUEUE if same_pod(new, pod) else QueueingHint.SKIP

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {}
