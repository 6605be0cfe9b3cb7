"""DefaultPreemption: the PostFilter plugin that decides whether evicting lower-priority pods
lets an unschedulable pod run, which pods, and on which node (upstream
`framework/plugins/defaultpreemption`).

It supplies the plugin half of `preemption.Evaluator`: who may preempt (not pods with
preemptionPolicy Never, nor a pod whose nominated node still has one of its victims
terminating), how many nodes to dry-run and from which random offset, and the victim selection
on one node: remove every lower-priority pod, check the preemptor fits, then add pods back
(reprieve) most important first — PDB-violating ones before the others — keeping every pod
whose return would make the preemptor not fit.

With SchedulerAsyncPreemption (on by default in v1.35) it is also a PreEnqueue plugin that
holds a preemptor back while its victims are still being deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import PREEMPT_NEVER, Pod
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    PluginArgsError,
    PostFilterPlugin,
    PostFilterResult,
    PreEnqueuePlugin,
)
from scheduler_core.framework.preemption import gosort
from scheduler_core.framework.preemption.preemption import (
    Candidate,
    Evaluator,
    Victims,
    more_important_pod,
)
from scheduler_core.framework.status import Code, Status, is_success
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    PodInfo,
    QueueingHint,
)

if TYPE_CHECKING:
    from scheduler_core.framework.interface import Handle
    from scheduler_core.framework.node_to_status import NodeToStatus

NAME = "DefaultPreemption"

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

MSG_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
MSG_NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"

CONDITION_DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

# (nodeInfo, victim, preemptor) -> may the victim be preempted (beyond lower priority)?
IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]
# (pod1, pod2) -> is pod1 more important (reprieved before pod2)?
MoreImportantPodFunc = Callable[[Pod, Pod], bool]


def _int_arg(args: dict[str, Any], key: str, default: int) -> int:
    v = args.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise PluginArgsError(f"{NAME}: {key}: Invalid value: {v!r}: must be an integer")
    return v


def parse_args(args: dict[str, Any] | None) -> tuple[int, int]:
    """DefaultPreemptionArgs with upstream defaults (10%, 100) and validation."""
    args = args or {}
    pct = _int_arg(args, "minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE)
    abs_ = _int_arg(args, "minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE)
    errs: list[str] = []
    if pct < 0 or pct > 100:
        errs.append(f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range [0, 100]")
    if abs_ < 0:
        errs.append(f"minCandidateNodesAbsolute: Invalid value: {abs_}: not in valid range [0, inf)")
    if pct == 0 and abs_ == 0:
        errs.append("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                    "minCandidateNodesAbsolute")
        errs.append("minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
                    "minCandidateNodesPercentage")
    if errs:
        msg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        raise PluginArgsError(f"{NAME}: {msg}")
    return pct, abs_


def pod_terminating_by_preemption(p: Pod) -> bool:
    """A pod being deleted because the scheduler preempted it: deletionTimestamp set and a
    DisruptionTarget=True condition with reason PreemptionByScheduler."""
    if p.deletion_timestamp is None:
        return False
    status = p.conditions.get(CONDITION_DISRUPTION_TARGET)
    if status is None:
        return False
    return status == "True" and p.condition_reasons.get(CONDITION_DISRUPTION_TARGET) == REASON_PREEMPTION_BY_SCHEDULER


def filter_pods_with_pdb_violation(pod_infos: list[PodInfo],
                                   pdbs: list[Any]) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split pods, keeping their order, into (violating, non-violating): evicting them in that
    order, does a pod take a matching PDB's allowed disruptions below zero?

    Every matching PDB's budget is spent by each matching pod; a pod already listed in the
    PDB's disruptedPods was counted by the API server and spends nothing. A PDB with a missing
    or empty selector matches nothing, and a pod without labels matches no PDB.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pod_infos:
        pod = pi.pod
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                sel = pdb.selector
                if sel is None or sel.is_empty() or not sel.matches(pod.labels):
                    continue
                if pod.name in (getattr(pdb, "disrupted_pods", None) or ()):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


class DefaultPreemption(PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions):
    """Preempts lower-priority pods so that an unschedulable pod can be nominated to a node."""

    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None,
                 enable_async_preemption: bool | None = None) -> None:
        super().__init__(args, handle)
        self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute = parse_args(args)
        if enable_async_preemption is None:  # the modelled version's SchedulerAsyncPreemption gate
            enable_async_preemption = gates_of(handle).scheduler_async_preemption
        self.enable_async_preemption = enable_async_preemption
        self.evaluator = Evaluator(NAME, handle, self, enable_async_preemption)  # type: ignore[arg-type]
        # Hooks upstream exposes for out-of-tree variants; the defaults are upstream's.
        self.is_eligible_pod: IsEligiblePodFunc = lambda node_info, victim, preemptor: True
        self.more_important_pod: MoreImportantPodFunc = self._default_more_important_pod

    def _now(self) -> float:
        return self.handle.now()  # type: ignore[union-attr]

    def _default_more_important_pod(self, pod1: Pod, pod2: Pod) -> bool:
        return more_important_pod(pod1, pod2, self._now)

    # -- extension points ----------------------------------------------------------------------

    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status_map: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        """Run the Evaluator; a non-empty message is prefixed with "preemption: "."""
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        msg = status.message() if status is not None else ""
        if msg:
            code = status.code  # type: ignore[union-attr]
            full = "preemption: " + msg
            return result, Status(code, full, plugin=NAME, err=full if code == Code.ERROR else "")
        return result, status

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold the pod back while its asynchronous preemption is still deleting victims."""
        if not self.enable_async_preemption:
            return None
        if self.evaluator.is_pod_running_preemption(pod.uid or pod.key):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_WAITING_FOR_PREEMPTION, plugin=NAME)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pod deletions may un-gate a preemptor; the hint always skips, leaving requeueing to
        the plugins that rejected the pod."""
        if not self.enable_async_preemption:
            return []
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE),
                                     self._is_pod_schedulable_after_pod_deletion)]

    @staticmethod
    def _is_pod_schedulable_after_pod_deletion(pod: Pod, old_obj: Any, new_obj: Any) -> int:
        return QueueingHint.SKIP

    # -- preemption.Interface ------------------------------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """max(numNodes * pct / 100, abs), never more than numNodes (integer arithmetic)."""
        n = (num_nodes * self.min_candidate_nodes_percentage) // 100
        if n < self.min_candidate_nodes_absolute:
            n = self.min_candidate_nodes_absolute
        if n > num_nodes:
            n = num_nodes
        return n

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start offset (one draw, as upstream's rand.Int31n) and how many candidates
        the dry run must find."""
        offset = self.handle.rng.randrange(num_nodes)  # type: ignore[union-attr]
        return offset, self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: list[Candidate]) -> dict[str, Victims]:
        m: dict[str, Victims] = {}
        for c in candidates:
            m[c.name] = c.victims
        return m

    def _is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        return victim.pod.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        """Not eligible: preemptionPolicy Never, or a pod that already preempted and whose
        nominated node still has one of its (lower-priority) victims terminating — unless the
        filters now find that node UnschedulableAndUnresolvable."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, MSG_PREEMPTION_POLICY_NEVER
        nom = pod.nominated_node_name
        if nom:
            if nominated_node_status is not None and nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot.get(nom)  # type: ignore[union-attr]
            if node_info is not None:
                for pi in node_info.pods:
                    if self._is_preemption_allowed(node_info, pi, pod) and pod_terminating_by_preemption(pi.pod):
                        return False, MSG_TERMINATING_ON_NOMINATED
        return True, ""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: list[Any]) -> tuple[list[Pod], int, Status | None]:
        """The fewest pods to evict from `node_info` (a copy) for `pod` to fit, and how many of
        them violate a PDB. `state` is a copy too."""
        h = self.handle
        assert h is not None

        def remove_pod(pi: PodInfo) -> Status | None:
            if not node_info.remove_pod(pi.pod):
                return Status.error(f"no corresponding pod {pi.pod.name} in pods of node {node_info.name}")
            st = h.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)
            if not is_success(st):
                return Status.error(st.err or st.message())
            return None

        def add_pod(pi: PodInfo) -> Status | None:
            node_info.add_pod_info(pi)
            st = h.run_pre_filter_extension_add_pod(state, pod, pi, node_info)
            if not is_success(st):
                return Status.error(st.err or st.message())
            return None

        # Remove every pod that may be preempted, then see whether the pod fits at all.
        potential: list[PodInfo] = []
        for pi in list(node_info.pods):
            if self._is_preemption_allowed(node_info, pi, pod):
                potential.append(pi)
                err = remove_pod(pi)
                if err is not None:
                    return [], 0, err
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS)

        st = h.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not is_success(st):
            return [], 0, st

        more_important = self.more_important_pod
        gosort.go_sort_slice(potential, lambda a, b: more_important(a.pod, b.pod))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)

        victims: list[PodInfo] = []

        def reprieve(pi: PodInfo) -> tuple[bool, Status | None]:
            err = add_pod(pi)
            if err is not None:
                return False, err
            fits = is_success(h.run_filter_plugins_with_nominated_pods(state, pod, node_info))
            if not fits:
                err = remove_pod(pi)
                if err is not None:
                    return False, err
                victims.append(pi)
            return fits, None

        num_violating = 0
        for pi in violating:
            fits, err = reprieve(pi)
            if err is not None:
                return [], 0, err
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _fits, err = reprieve(pi)
            if err is not None:
                return [], 0, err

        if violating and non_violating:
            gosort.go_sort_slice(victims, lambda a, b: more_important(a.pod, b.pod))
        return [pi.pod for pi in victims], num_violating, None

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[Callable[[str], Any]] | None:
        """No plugin-specific ordering: pickOneNodeForPreemption's default criteria apply."""
        return None
