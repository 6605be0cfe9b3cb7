"""One scheduling attempt's algorithm: find feasible nodes, score them, pick one
(upstream schedule_one.go: schedulePod, findNodesThatFitPod, findNodesThatPassFilters,
numFeasibleNodesToFind, prioritizeNodes, selectHost).

These are free functions over a `Scheduler` so the order of operations can be read top to
bottom next to upstream. The scheduling cycle (assume/reserve/permit) and the binding cycle live
in `scheduler_core.scheduler`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.runtime.batch import sign_pod
from scheduler_core.framework.runtime.framework import Framework, NodePluginScores
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.goheap import heap_init, heap_pop, max_heap_init_root

if TYPE_CHECKING:
    from scheduler_core.scheduler import Scheduler

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"
EXTENDER_NAME = "Extender"


@dataclass
class Diagnosis:
    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    node_hint: str = ""  # opportunistic batching's hinted node
    signature: tuple | None = None  # the pod's batching signature

    def add_plugin_status(self, st: Status) -> None:
        if not st.plugin:
            return
        if st.is_rejected():
            self.unschedulable_plugins.add(st.plugin)
        if st.code == Code.PENDING:
            self.pending_plugins.add(st.plugin)


class FitError(Exception):
    """No node fits: carries the diagnosis FailedScheduling's message is built from."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def message(self) -> str:
        """"0/N nodes are available: <sorted counted reasons>. <PostFilter message>"."""
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            for st in d.node_to_status.node_to_status.values():
                for r in st.reasons:
                    counts[r] = counts.get(r, 0) + 1
            n_explicit = len(d.node_to_status)
            if n_explicit < self.num_all_nodes:
                for r in d.node_to_status.absent_nodes_status.reasons:
                    counts[r] = counts.get(r, 0) + self.num_all_nodes - n_explicit
            parts = sorted(f"{v} {k}" for k, v in counts.items())
            if parts:
                msg += " " + ", ".join(parts) + "."
        if d.post_filter_msg:
            msg += " " + d.post_filter_msg
        return msg

    __str__ = message


class SchedulingError(Exception):
    """A non-FitError failure (plugin Error status, no nodes)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


@dataclass
class ScheduleResult:
    suggested_host: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0


def num_feasible_nodes_to_find(sched: Scheduler, percentage: int | None, num_all_nodes: int) -> int:
    """How many feasible nodes to find before stopping the filter walk."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage if percentage is not None else sched.config.percentage_of_nodes_to_score
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


def schedule_pod(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod) -> ScheduleResult:
    """Raises FitError / SchedulingError when no node is suggested."""
    sched.cache.update_snapshot(sched.snapshot)
    num_nodes = sched.snapshot.num_nodes()
    if num_nodes == 0:
        raise SchedulingError(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_NODES_AVAILABLE))
    feasible, diagnosis = find_nodes_that_fit_pod(sched, fwk, state, pod)
    if not feasible:
        raise FitError(pod, num_nodes, diagnosis)
    batch = sched.batches.get(fwk.profile_name)
    if len(feasible) == 1:
        host = feasible[0].name
        if batch is not None:
            batch.store_schedule_results(diagnosis.signature, diagnosis.node_hint, host, None,
                                         sched.queue.scheduling_cycle, sched.clock.now())
        if sched.sink.enabled:
            sched.sink.emit("selected", cycle=sched.queue.scheduling_cycle, pod=pod.key, node=host,
                            score=None, ties=[host], hinted=bool(diagnosis.node_hint))
        return ScheduleResult(host, 1 + len(diagnosis.node_to_status), 1)
    if not sched.extenders and not sched.sink.enabled and (batch is None or diagnosis.signature is None):
        # Nothing needs the sorted scores (an unsignable pod leaves no batch behind).
        host = _prioritize_and_select_fast(sched, fwk, state, pod, feasible)
        if batch is not None:
            batch.store_schedule_results(None, diagnosis.node_hint, host, None,
                                         sched.queue.scheduling_cycle, sched.clock.now())
    else:
        scores = prioritize_nodes(sched, fwk, state, pod, feasible)
        host, rest = select_host(sched, pod, scores)
        if batch is not None:
            batch.store_schedule_results(diagnosis.signature, diagnosis.node_hint, host, rest,
                                         sched.queue.scheduling_cycle, sched.clock.now())
    return ScheduleResult(host, len(feasible) + len(diagnosis.node_to_status), len(feasible))


def find_nodes_that_fit_pod(sched: Scheduler, fwk: Framework, state: CycleState,
                            pod: Pod) -> tuple[list[NodeInfo], Diagnosis]:
    diagnosis = Diagnosis()
    all_nodes = sched.snapshot.list()
    pre_res, s, unsched_plugins = fwk.run_pre_filter_plugins(state, pod)
    diagnosis.unschedulable_plugins = set(unsched_plugins)
    if s is not None and s.code != Code.SUCCESS:
        if not s.is_rejected():
            raise SchedulingError(s)
        diagnosis.node_to_status.absent_nodes_status = s
        diagnosis.pre_filter_msg = s.message()
        diagnosis.add_plugin_status(s)
        return [], diagnosis

    batch = sched.batches.get(fwk.profile_name)
    if batch is not None:
        diagnosis.signature = sign_pod(fwk, sched.batchable[fwk.profile_name], pod)
        diagnosis.node_hint = batch.get_node_hint(fwk, state, pod, sched.queue.scheduling_cycle,
                                                  diagnosis.signature, sched.clock.now(), _score_less)

    # A nominated node (set by an earlier preemption), or else the batch's hinted node, is tried
    # on its own first.
    nnn = pod.nominated_node_name or diagnosis.node_hint
    if nnn:
        ni = sched.snapshot.get(nnn)
        if ni is not None:
            try:
                feasible = find_nodes_that_pass_filters(sched, fwk, state, pod, diagnosis, [ni], nominated=True)
                feasible = find_nodes_that_pass_extenders(sched, pod, feasible, diagnosis.node_to_status)
            except SchedulingError:
                feasible = []  # upstream only logs a failed evaluation and goes on with all nodes
            if sched.sink.enabled:
                sched.sink.emit("nominated_node_tried", cycle=sched.queue.scheduling_cycle, pod=pod.key,
                                node=ni.name, feasible=bool(feasible))
            if feasible:
                return feasible, diagnosis

    nodes = all_nodes
    if pre_res is not None and not pre_res.all_nodes():
        wanted = pre_res.node_names or set()
        # Upstream ranges over a Go map here (random order); node-tree order is one of them.
        nodes = [ni for ni in all_nodes if ni.name in wanted]
        diagnosis.node_to_status.absent_nodes_status = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(unsched_plugins))}]")
    feasible = find_nodes_that_pass_filters(sched, fwk, state, pod, diagnosis, nodes)
    processed = len(feasible) + len(diagnosis.node_to_status)
    if all_nodes:
        sched.next_start_node_index = (sched.next_start_node_index + processed) % len(all_nodes)
    after_ext = find_nodes_that_pass_extenders(sched, pod, feasible, diagnosis.node_to_status)
    if len(after_ext) != len(feasible):
        diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
    return after_ext, diagnosis


def _has_scoring(sched: Scheduler, fwk: Framework) -> bool:
    return fwk.has_score_plugins() or any(e.is_prioritizer() for e in sched.extenders)


def find_nodes_that_pass_filters(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod,
                                 diagnosis: Diagnosis, nodes: list[NodeInfo],
                                 nominated: bool = False) -> list[NodeInfo]:
    """Walk `nodes` from the rotating start index, one by one (parallelism 1), until
    numFeasibleNodesToFind nodes passed; the walk stops when one more feasible node is found,
    which is dropped, exactly as upstream's cancelled parallel walk with one worker does."""
    num_all = len(nodes)
    if num_all == 0:
        return []
    to_find = num_feasible_nodes_to_find(sched, fwk.percentage_of_nodes_to_score, num_all)
    if not any(e.is_filter() for e in sched.extenders) and not _has_scoring(sched, fwk):
        to_find = 1
    start = sched.next_start_node_index
    if not fwk.has_filter_plugins():
        return [nodes[(start + i) % num_all] for i in range(to_find)]

    verbose = sched.sink.enabled
    has_nominated = bool(sched.queue.nominator.nominated_pod_to_node)
    if not verbose and not has_nominated:
        return _pass_filters_batched(fwk, state, pod, diagnosis, nodes, start, to_find)
    feasible: list[NodeInfo] = []
    order: list[str] = []
    verdicts: dict[str, Any] = {}
    statuses: list[tuple[str, Status]] = []
    error: Status | None = None
    run = fwk.run_filter_plugins_with_nominated_pods if has_nominated else fwk.run_filter_plugins
    for i in range(num_all):
        ni = nodes[(start + i) % num_all]
        if verbose:
            st, per_plugin = _verbose_filter(fwk, state, pod, ni, has_nominated)
            order.append(ni.name)
            verdicts[ni.name] = per_plugin
        else:
            st = run(state, pod, ni)
        if st is None or st.code == Code.SUCCESS:
            if len(feasible) >= to_find:
                if verbose:
                    verdicts[ni.name] = {"_": {"code": "Cancelled",
                                               "reasons": ["enough feasible nodes were found"]}}
                break
            feasible.append(ni)
        elif st.code == Code.ERROR:
            error = st
            break
        else:
            statuses.append((ni.name, st))
    for name, st in statuses:
        diagnosis.node_to_status.set(name, st)
        diagnosis.add_plugin_status(st)
    if verbose:
        evaluated = set(order)
        sched.sink.emit(
            "filter_verdicts", cycle=sched.queue.scheduling_cycle, pod=pod.key, nominated_only=nominated,
            nodes=order, verdicts=verdicts, feasible=[n.name for n in feasible], num_to_find=to_find,
            start_index=start, not_evaluated=[n.name for n in nodes if n.name not in evaluated])
    if error is not None:
        raise SchedulingError(error)
    return feasible


def _pass_filters_batched(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                          nodes: list[NodeInfo], start: int, to_find: int) -> list[NodeInfo]:
    """The same walk, a chunk of nodes at a time through fwk.run_filter_plugins_batch. A chunk
    is never longer than the nodes the walk still needs if all of them pass, so exactly the
    nodes the one-by-one walk evaluates are evaluated (beyond the first Error, at most the rest
    of its chunk: the cycle fails then anyway)."""
    num_all = len(nodes)
    order = nodes[start:] + nodes[:start] if start else nodes
    feasible: list[NodeInfo] = []
    pos = 0
    error: Status | None = None
    node_to_status = diagnosis.node_to_status
    while pos < num_all and error is None:
        need = to_find + 1 - len(feasible)
        chunk = order[pos:pos + need]
        pos += len(chunk)
        sts = fwk.run_filter_plugins_batch(state, pod, chunk)
        if sts.count(None) == len(sts):
            if len(feasible) + len(chunk) > to_find:
                feasible.extend(chunk[:to_find - len(feasible)])
                break
            feasible.extend(chunk)
            continue
        done = False
        for ni, st in zip(chunk, sts, strict=True):
            if st is None or st.code == Code.SUCCESS:
                if len(feasible) >= to_find:
                    done = True
                    break
                feasible.append(ni)
            elif st.code == Code.ERROR:
                error = st
                break
            else:
                node_to_status.set(ni.name, st)
                diagnosis.add_plugin_status(st)
        if done:
            break
    if error is not None:
        raise SchedulingError(error)
    return feasible


def _verbose_filter(fwk: Framework, state: CycleState, pod: Pod, ni: NodeInfo,
                    has_nominated: bool) -> tuple[Status | None, dict[str, Any]]:
    """Filter one node recording each plugin's verdict; same result as the fast path."""
    if has_nominated:
        st = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        _, per_plugin = fwk.run_filter_plugins_verbose(state, pod, ni)
        if st is not None and st.plugin and st.plugin in per_plugin and per_plugin[st.plugin]["code"] == "Success":
            per_plugin[st.plugin] = {"code": st.code.label, "reasons": list(st.reasons),
                                     "withNominatedPods": True}
        return st, per_plugin
    return fwk.run_filter_plugins_verbose(state, pod, ni)


def find_nodes_that_pass_extenders(sched: Scheduler, pod: Pod, feasible: list[NodeInfo],
                                   statuses: NodeToStatus) -> list[NodeInfo]:
    """Extenders filter after the plugins; their rejections join the node statuses."""
    for ext in sched.extenders:
        if not feasible:
            break
        if not ext.is_filter() or not ext.is_interested(pod):
            continue
        feasible_list, failed, failed_unresolvable, err = sched.call_extender_filter(ext, pod, feasible)
        if err is not None:
            if ext.is_ignorable():
                continue
            raise SchedulingError(Status.error(err))
        for name, reason in failed_unresolvable.items():
            statuses.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason))
        for name, reason in failed.items():
            if name in failed_unresolvable:
                continue
            statuses.set(name, Status(Code.UNSCHEDULABLE, reason))
        feasible = feasible_list
    return feasible


def prioritize_nodes(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod,
                     nodes: list[NodeInfo]) -> list[NodePluginScores]:
    if not sched.extenders and not fwk.has_score_plugins():
        return [NodePluginScores(ni.name, [], 1) for ni in nodes]
    st = fwk.run_pre_score_plugins(state, pod, nodes)
    if st is not None and st.code != Code.SUCCESS:
        raise SchedulingError(st)
    scores, st, breakdown = fwk.run_score_plugins(state, pod, nodes)
    if st is not None:
        raise SchedulingError(st)
    assert scores is not None
    if sched.extenders:
        sched.apply_extender_scores(pod, nodes, scores, breakdown)
    if sched.sink.enabled:
        sched.sink.emit("scores", cycle=sched.queue.scheduling_cycle, pod=pod.key, plugins=breakdown or {},
                        totals={s.name: s.total_score for s in scores},
                        weights=dict(fwk.score_weights))
    return scores


def _prioritize_and_select_fast(sched: Scheduler, fwk: Framework, state: CycleState, pod: Pod,
                                nodes: list[NodeInfo]) -> str:
    """prioritize_nodes + select_host when no extender adds scores (so every randomizer is 0)
    and nobody listens: only the weighted totals are computed, and the heap root is found
    without building the heap. Same host as the general path."""
    if not fwk.has_score_plugins():
        return nodes[0].name  # every total is 1: heap.Init leaves the first node at the root
    st = fwk.run_pre_score_plugins(state, pod, nodes)
    if st is not None and st.code != Code.SUCCESS:
        raise SchedulingError(st)
    totals, st = fwk.run_score_plugins_totals(state, pod, nodes)
    if st is not None:
        raise SchedulingError(st)
    assert totals is not None
    return nodes[max_heap_init_root(totals)].name


def _score_less(a: NodePluginScores, b: NodePluginScores) -> bool:
    return a.total_score > b.total_score or (a.total_score == b.total_score and a.randomizer > b.randomizer)


def select_host(sched: Scheduler, pod: Pod,
                scores: list[NodePluginScores]) -> tuple[str, list[NodePluginScores]]:
    """The first pop of Go's container/heap over the scores in walk order: highest total wins;
    among equal totals, whichever heap.Init leaves at the root (not a random choice).
    Returns the winner and the remaining heap (opportunistic batching hints from it)."""
    h = list(scores)
    heap_init(h, _score_less)
    best = heap_pop(h, _score_less)
    if sched.sink.enabled:
        ties = [s.name for s in scores if s.total_score == best.total_score]
        sched.sink.emit("selected", cycle=sched.queue.scheduling_cycle, pod=pod.key, node=best.name,
                        score=best.total_score, ties=ties)
    return best.name, h
