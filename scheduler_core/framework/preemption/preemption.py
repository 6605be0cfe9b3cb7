"""The generic preemption machinery (upstream `pkg/scheduler/framework/preemption`).

When no node passes the filters, a PostFilter plugin may make room by evicting lower-priority
pods. The `Evaluator` runs upstream's algorithm:

1. the preemptor must be eligible (plugin-specific, e.g. preemptionPolicy Never is not);
2. only nodes whose filter verdict was `Unschedulable` (not `UnschedulableAndUnresolvable`)
   can be helped; from a random offset, dry-run the preemption on them one by one until enough
   candidates (nodes plus the minimal victim set) are found;
3. extenders that support preemption may veto or trim candidates;
4. the best candidate is chosen by `pick_one_node_for_preemption`'s ordered criteria;
5. its victims are deleted (asynchronously upstream since v1.33: the SchedulerAsyncPreemption
   gate is on by default in v1.35), lower-priority pods nominated to that node lose their
   nomination, and the preemptor is nominated to the node.

The plugin-specific steps live behind `PreemptionInterface` (DefaultPreemption implements it).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.featuregate.features import gates_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import PostFilterResult
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.runtime.version_behaviour import preemption_potential_nodes
from scheduler_core.framework.status import Code, Status, is_success
from scheduler_core.framework.types import NodeInfo

if TYPE_CHECKING:
    from scheduler_core.framework.interface import Handle

# Upstream's FitError prefix (framework.NoNodeAvailableMsg).
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
PREEMPTION_NOT_HELPFUL_MSG = "Preemption is not helpful for scheduling"
NO_CANDIDATE_NODE_MSG = "no candidate node for preemption"

_MAX_INT32 = (1 << 31) - 1

# Names of the pickOneNodeForPreemption criteria, reported to the UI as "why".
CRITERION_ONLY_CANDIDATE = "only candidate"
CRITERION_PDB_VIOLATIONS = "fewest PDB violations"
CRITERION_HIGHEST_PRIORITY = "lowest highest-priority victim"
CRITERION_SUM_PRIORITIES = "smallest sum of victim priorities"
CRITERION_NUM_VICTIMS = "fewest victims"
CRITERION_START_TIME = "latest start time of highest-priority victims"
CRITERION_FIRST = "first candidate in order"
DEFAULT_CRITERIA = (
    CRITERION_PDB_VIOLATIONS,
    CRITERION_HIGHEST_PRIORITY,
    CRITERION_SUM_PRIORITIES,
    CRITERION_NUM_VICTIMS,
    CRITERION_START_TIME,
)


# ---------------------------------------------------------------------------------------------
# Pod importance (upstream pkg/scheduler/util: GetPodStartTime, MoreImportantPod, ...)
# ---------------------------------------------------------------------------------------------

# A start time is compared as (seconds, tick). A pod whose status.startTime is set gives
# (start_time, 0). A pod without one makes upstream answer time.Now(): a fresh instant that is
# later than every earlier answer, which a strictly increasing tick reproduces.
_now_ticks = count(1)

StartTime = tuple[float, int]


def get_pod_start_time(pod: Pod, now: Callable[[], float]) -> StartTime:
    """status.startTime, or "now" for pods no kubelet has started (upstream GetPodStartTime)."""
    st = pod.start_time
    if st is not None:
        return (st, 0)
    return (now(), next(_now_ticks))


def get_earliest_pod_start_time(victims: Victims, now: Callable[[], float]) -> StartTime | None:
    """The earliest start time among the highest-priority victims (upstream
    GetEarliestPodStartTime); None when there are no victims."""
    pods = victims.pods
    if not pods:
        return None
    earliest = get_pod_start_time(pods[0], now)
    max_priority = pods[0].priority
    for p in pods:
        prio = p.priority
        if prio == max_priority:
            t = get_pod_start_time(p, now)
            if t < earliest:
                earliest = t
        elif prio > max_priority:
            max_priority = prio
            earliest = get_pod_start_time(p, now)
    return earliest


def more_important_pod(pod1: Pod, pod2: Pod, now: Callable[[], float]) -> bool:
    """Higher priority first; on equal priority the pod that started earlier (upstream
    util.MoreImportantPod). Victims are reprieved in this order, most important first."""
    p1, p2 = pod1.priority, pod2.priority
    if p1 != p2:
        return p1 > p2
    return get_pod_start_time(pod1, now) < get_pod_start_time(pod2, now)


# ---------------------------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------------------------


class Victims:
    """The pods to evict on one node, most important first, and how many of them violate a
    PodDisruptionBudget (upstream extenderv1.Victims)."""

    __slots__ = ("pods", "num_pdb_violations")

    def __init__(self, pods: list[Pod], num_pdb_violations: int = 0) -> None:
        self.pods = pods
        self.num_pdb_violations = num_pdb_violations

    def __repr__(self) -> str:
        return f"Victims({[p.key for p in self.pods]}, pdb={self.num_pdb_violations})"


class Candidate:
    """A node the preemptor could be nominated to, with the victims that make it fit."""

    __slots__ = ("victims", "name")

    def __init__(self, victims: Victims, name: str) -> None:
        self.victims = victims
        self.name = name

    def __repr__(self) -> str:
        return f"Candidate({self.name}, {self.victims!r})"


class _CandidateList:
    """Fixed-capacity list: adds beyond the capacity are dropped, as upstream's candidateList."""

    __slots__ = ("items", "cap")

    def __init__(self, cap: int) -> None:
        self.items: list[Candidate] = []
        self.cap = cap

    def add(self, c: Candidate) -> None:
        if len(self.items) < self.cap:
            self.items.append(c)

    def size(self) -> int:
        return len(self.items)


class PreemptionInterface(Protocol):
    """What a preemption plugin supplies to the Evaluator (upstream preemption.Interface)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def candidates_to_victims_map(self, candidates: list[Candidate]) -> dict[str, Victims]: ...

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]: ...

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: list[Any]) -> tuple[list[Pod], int, Status | None]: ...

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[Callable[[str], Any]] | None: ...


def aggregate_errors(messages: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): one message as is, several de-duplicated in
    brackets; "" for none."""
    if not messages:
        return ""
    if len(messages) == 1:
        return messages[0]
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def fit_error_message(num_all_nodes: int, node_to_status: NodeToStatus) -> str:
    """framework.FitError.Error() without PreFilter/PostFilter messages: the count of every
    reason, nodes absent from the map counting with the absent-nodes status, sorted as whole
    strings."""
    reasons: dict[str, int] = {}
    for _name, st in node_to_status.items():
        for r in st.reasons:
            reasons[r] = reasons.get(r, 0) + 1
    explicit = len(node_to_status)
    if explicit < num_all_nodes:
        for r in node_to_status.absent_nodes_status.reasons:
            reasons[r] = reasons.get(r, 0) + num_all_nodes - explicit
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    parts = sorted(f"{v} {k}" for k, v in reasons.items())
    if parts:
        msg += " " + ", ".join(parts) + "."
    return msg


def pick_one_node_for_preemption(
    nodes_to_victims: dict[str, Victims],
    score_funcs: list[Callable[[str], Any]] | None,
    now: Callable[[], float],
) -> tuple[str, str]:
    """Choose one node among the candidates; returns (node, the criterion that decided).

    Without plugin score functions the criteria, in upstream's order, are: fewest PDB
    violations; lowest priority of the most important victim; smallest sum of victim priorities
    (each shifted by 2^31 so negative priorities still add up); fewest victims; latest start
    time of the highest-priority victims; then the first remaining node. Each criterion only
    breaks the ties the previous ones left. Upstream walks a Go map, so its "first" is random;
    here it is the candidates' order.
    """
    if not nodes_to_victims:
        return "", ""
    candidates = list(nodes_to_victims)
    if score_funcs:
        named = [(f"score function {i}", f) for i, f in enumerate(score_funcs)]
    else:
        def min_pdb(node: str) -> int:
            return -nodes_to_victims[node].num_pdb_violations

        def min_highest_priority(node: str) -> int:
            return -nodes_to_victims[node].pods[0].priority

        def min_sum_priorities(node: str) -> int:
            return -sum(p.priority + _MAX_INT32 + 1 for p in nodes_to_victims[node].pods)

        def min_num_pods(node: str) -> int:
            return -len(nodes_to_victims[node].pods)

        def latest_start_time(node: str) -> Any:
            t = get_earliest_pod_start_time(nodes_to_victims[node], now)
            return (float("-inf"), 0) if t is None else t

        named = list(zip(DEFAULT_CRITERIA,
                         (min_pdb, min_highest_priority, min_sum_priorities, min_num_pods, latest_start_time),
                         strict=True))
    for crit, f in named:
        selected: list[str] = []
        best: Any = None
        for node in candidates:
            score = f(node)
            if best is None or score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0], crit
        candidates = selected
    return candidates[0], CRITERION_FIRST


# ---------------------------------------------------------------------------------------------
# Evaluator
# ---------------------------------------------------------------------------------------------


class Evaluator:
    """Runs preemption for one plugin (upstream preemption.Evaluator)."""

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface,
                 enable_async_preemption: bool = True) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.enable_async_preemption = enable_async_preemption
        # Preemptors whose victims are still being deleted (async preemption); their
        # PreEnqueue is held back meanwhile. uid -> None, or the (namespace, name) of the last
        # victim once only that one is left.
        self.preempting: set[str] = set()
        self.last_victims_pending_preemption: dict[str, tuple[str, str]] = {}

    # -- helpers -------------------------------------------------------------------------------

    def _now(self) -> float:
        return self.handle.now()

    @staticmethod
    def _uid(pod: Pod) -> str:
        return pod.uid or pod.key

    def is_pod_running_preemption(self, pod_uid: str) -> bool:
        """True while the pod's asynchronous preemption has not finished deleting victims."""
        if pod_uid not in self.preempting:
            return False
        victim = self.last_victims_pending_preemption.get(pod_uid)
        if victim is None:
            return True
        vp = self.handle.cluster.get_pod(victim[0], victim[1])
        if vp is None or vp.deletion_timestamp is not None:
            return False
        return True

    # -- Preempt -------------------------------------------------------------------------------

    def preempt(self, state: CycleState, pod: Pod,
                m: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        """Upstream Evaluator.Preempt. Returns (result, status):

        - (None, Error): transient failure; the nomination is left as it is;
        - (None, Unschedulable): not eligible, or no candidate survived the extenders;
        - (PostFilterResult(""), Unschedulable): preemption cannot help; clears the nomination;
        - (PostFilterResult(node), None): victims are gone, nominate the preemptor to `node`.
        """
        h = self.handle
        # 0) the latest version of the preemptor
        latest = h.cluster.get_pod(pod.namespace, pod.name)
        if latest is None:
            return None, Status.error(f'pods "{pod.name}" not found')
        pod = latest

        # 1) eligibility
        nominated_status = m.get(pod.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            self._emit(pod, [], None, msg)
            return None, Status(Code.UNSCHEDULABLE, msg)

        # 2) candidates
        all_nodes = h.snapshot.list()
        candidates, node_to_status, err = self.find_candidates(state, all_nodes, pod, m)
        if err and not candidates:
            self._emit(pod, [], None, err)
            return None, Status.error(err)

        if not candidates:
            node_to_status.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                        PREEMPTION_NOT_HELPFUL_MSG)
            msg = fit_error_message(len(all_nodes), node_to_status)
            self._emit(pod, [], None, msg)
            return PostFilterResult(nominated_node_name=""), Status(Code.UNSCHEDULABLE, msg)

        # 3) extenders
        candidates, status = self.call_extenders(pod, candidates)
        if not is_success(status):
            self._emit(pod, candidates, None, status.message() if status else "")
            return None, status

        # 4) the best candidate
        best, why = self._select_candidate(candidates)
        if best is None or not best.name:
            self._emit(pod, candidates, None, NO_CANDIDATE_NODE_MSG)
            return None, Status(Code.UNSCHEDULABLE, NO_CANDIDATE_NODE_MSG)
        self._emit(pod, candidates, best.name, why)

        # 5) evict the victims, clear lower-priority nominations
        if self.enable_async_preemption:
            self.prepare_candidate_async(best, pod, self.plugin_name)
        else:
            status = self.prepare_candidate(best, pod, self.plugin_name)
            if not is_success(status):
                return None, status
        return PostFilterResult(nominated_node_name=best.name), None

    def find_candidates(self, state: CycleState, all_nodes: list[NodeInfo], pod: Pod,
                        m: NodeToStatus) -> tuple[list[Candidate], NodeToStatus, str]:
        """Dry-run preemption on the nodes preemption might help (those the filters found
        `Unschedulable`). Returns (candidates, statuses of the nodes that failed, error text)."""
        if not all_nodes:
            return [], NodeToStatus(), "no nodes available"
        potential = preemption_potential_nodes(gates_of(self.handle), m, all_nodes)
        if not potential:
            return [], NodeToStatus(), ""
        pdbs = list(self.handle.cluster.pdbs())
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: list[NodeInfo],
                           pdbs: list[Any], offset: int,
                           num_candidates: int) -> tuple[list[Candidate], NodeToStatus, str]:
        """Upstream DryRunPreemption with parallelism 1: visit the nodes from `offset`,
        wrapping around, on copies of each node and of the cycle state; stop once at least
        one PDB-respecting candidate exists and `num_candidates` were found. Candidates that
        violate no PDB come first."""
        non_violating = _CandidateList(num_candidates)
        violating = _CandidateList(num_candidates)
        statuses = NodeToStatus()
        errs: list[str] = []
        n = len(potential_nodes)
        for i in range(n):
            node_copy = potential_nodes[(offset + i) % n].snapshot()
            state_copy = state.clone()
            pods, num_violations, status = self.interface.select_victims_on_node(
                state_copy, pod, node_copy, pdbs)
            if is_success(status) and pods:
                c = Candidate(Victims(pods, num_violations), node_copy.name)
                if num_violations == 0:
                    non_violating.add(c)
                else:
                    violating.add(c)
                nvc, vc = non_violating.size(), violating.size()
                if nvc > 0 and nvc + vc >= num_candidates:
                    break
                continue
            if is_success(status):
                status = Status.error(f'expected at least one victim pod on node "{node_copy.name}"')
            if status.code == Code.ERROR:
                errs.append(status.err or status.message())
            statuses.set(node_copy.name, status)
        return non_violating.items + violating.items, statuses, aggregate_errors(errs)

    def call_extenders(self, pod: Pod, candidates: list[Candidate]) -> tuple[list[Candidate], Status | None]:
        """Let extenders that support preemption trim the candidates (upstream callExtenders).

        Each interested extender gets `process_preemption(pod, victims_map)` and returns the
        node -> Victims map it accepts; that map is what the next extender sees.
        """
        extenders = getattr(self.handle, "extenders", None) or []
        if not extenders:
            return candidates, None
        victims_map = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return candidates, None
        for ext in extenders:
            if not ext.supports_preemption() or not ext.is_interested(pod):
                continue
            try:
                result = ext.process_preemption(pod, victims_map)
            except Exception as e:  # an extender's failure is its error message
                if ext.is_ignorable():
                    continue
                return [], Status.error(str(e))
            result = dict(result or {})
            for node_name in list(result):
                victims = result[node_name]
                if victims is None or not victims.pods:
                    if ext.is_ignorable():
                        del result[node_name]
                        continue
                    return [], Status.error(f'expected at least one victim pod on node "{node_name}"')
            victims_map = result
            if not victims_map:
                break
        return [Candidate(v, name) for name, v in victims_map.items()], None

    def select_candidate(self, candidates: list[Candidate]) -> Candidate | None:
        """The best candidate (upstream SelectCandidate)."""
        return self._select_candidate(candidates)[0]

    def _select_candidate(self, candidates: list[Candidate]) -> tuple[Candidate | None, str]:
        if not candidates:
            return None, ""
        if len(candidates) == 1:
            return candidates[0], CRITERION_ONLY_CANDIDATE
        victims_map = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        node, why = pick_one_node_for_preemption(victims_map, score_funcs, self._now)
        victims = victims_map.get(node)
        if victims is not None:
            return Candidate(victims, node), why
        return candidates[0], CRITERION_FIRST

    # -- evicting ------------------------------------------------------------------------------

    def _lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        """Pods nominated to `node_name` with a lower priority than the preemptor: they may no
        longer fit there (upstream getLowerPriorityNominatedPods)."""
        infos = self.handle.nominated_pods_for_node(node_name)
        return [pi.pod for pi in infos if pi.pod.priority < pod.priority]

    def prepare_candidate(self, c: Candidate, pod: Pod, plugin_name: str) -> Status | None:
        """Synchronous variant (SchedulerAsyncPreemption off): delete the victims that are not
        already terminating, then clear the lower-priority nominations on the node."""
        h = self.handle
        for victim in c.victims.pods:
            if victim.deletion_timestamp is not None:
                continue
            st = h.preempt_victim(victim, pod, c.name)
            if not is_success(st):
                return Status.error(st.err or st.message())
        for p in self._lower_priority_nominated_pods(pod, c.name):
            h.clear_nominated_node_name(p)
        return None

    def prepare_candidate_async(self, c: Candidate, pod: Pod, plugin_name: str) -> None:
        """Asynchronous variant (v1.35 default). Upstream runs this in a goroutine: clear the
        lower-priority nominations on the node first, then delete every victim but the last,
        then the last one, while holding the preemptor back from the queue. With no API
        latency the goroutine finishes at once, so it runs inline here in the same order."""
        h = self.handle
        victim_pods = [v for v in c.victims.pods if v.deletion_timestamp is None]
        if not victim_pods:
            return
        uid = self._uid(pod)
        self.preempting.add(uid)
        failed = False
        try:
            for p in self._lower_priority_nominated_pods(pod, c.name):
                h.clear_nominated_node_name(p)
            for victim in victim_pods[:-1]:
                if not is_success(h.preempt_victim(victim, pod, c.name)):
                    failed = True
            last = victim_pods[-1]
            self.last_victims_pending_preemption[uid] = (last.namespace, last.name)
            if not is_success(h.preempt_victim(last, pod, c.name)):
                failed = True
        finally:
            self.preempting.discard(uid)
            self.last_victims_pending_preemption.pop(uid, None)
        if failed:
            # Upstream moves the preemptor to activeQ so it does not get stuck.
            activate = getattr(h, "activate", None)
            if activate is not None:
                activate(pod)

    # -- UI ------------------------------------------------------------------------------------

    def _emit(self, pod: Pod, candidates: list[Candidate], chosen: str | None, why: str) -> None:
        h = self.handle
        if not getattr(h, "events_enabled", False):
            return
        h.emit(
            "preemption",
            pod=pod.key,
            plugin=self.plugin_name,
            candidates=[
                {"node": c.name, "victims": [v.key for v in c.victims.pods],
                 "num_pdb_violations": c.victims.num_pdb_violations}
                for c in candidates
            ],
            chosen=chosen,
            why=why,
        )
