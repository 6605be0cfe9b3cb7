"""One pod's way through the scheduler (upstream schedule_one.go): pop it, run its scheduling
cycle (find feasible nodes, score them, pick one; assume, Reserve, Permit), then its binding
cycle (PreBind, Bind, PostBind), or handle the failure (requeue, FailedScheduling, nomination).

`ScheduleOne` holds the cycles as methods of `Scheduler` (a mixin, as upstream's are methods of
its Scheduler), in upstream's order: schedule_one, scheduling_cycle, binding_cycle,
handle_binding_cycle_error, extenders_binding, handle_scheduling_failure. The algorithm of one
attempt follows as free functions over the scheduler, read top to bottom next to upstream:
schedule_pod, find_nodes_that_fit_pod, find_nodes_that_pass_filters, num_feasible_nodes_to_find,
find_nodes_that_pass_extenders, prioritize_nodes, select_host.

Everything happens on the virtual clock in one thread: where upstream runs the binding cycle in
a goroutine, it runs here right after the scheduling cycle at the same virtual time (or later,
when a Permit plugin makes the pod wait).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import compress, repeat
from operator import eq
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import Pod
from scheduler_core.backend.cache.cache import CacheError
from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode
from scheduler_core.framework import events as fe
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis, FitError, SchedulingError, fit_status
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.runtime import fastpath
from scheduler_core.framework.runtime.batch import sign_pod
from scheduler_core.framework.runtime.filter_record import FEASIBLE_NAMES_KEY, FeasibleNames, FilterRecord
from scheduler_core.framework.runtime.framework import Framework, NodePluginScores
from scheduler_core.framework.runtime.version_behaviour import prefilter_result_absent_status, select_host_reservoir
from scheduler_core.framework.runtime.waiting_pods import WaitingPod, go_duration, next_deadline
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from scheduler_core.util.copy_fields import replace_fields
from scheduler_core.util.goheap import heap_init, heap_pop
from scheduler_core.util.name_table import NameSpanPick, TableRun, table_for

if TYPE_CHECKING:
    from scheduler_core.apiserver.store.cluster import ClusterState
    from scheduler_core.backend.cache.cache import Cache
    from scheduler_core.backend.cache.snapshot import Snapshot
    from scheduler_core.backend.queue.scheduling_queue import PriorityQueue
    from scheduler_core.config.types import KubeSchedulerConfiguration
    from scheduler_core.events.recorder import EventSink
    from scheduler_core.framework.runtime.batch import OpportunisticBatch
    from scheduler_core.framework.runtime.options import Clock

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"
EXTENDER_NAME = "Extender"
NOTE_LENGTH_LIMIT = 1024


@dataclass
class ScheduleResult:
    suggested_host: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0


class ScheduleOne:
    """The scheduling and binding cycles and failure handling (part of `Scheduler`).

    What the cycles use of the scheduler they belong to, set up by `Scheduler.__init__`; the
    API writes (bind_pod, set_nominated_node_name, _k8s_event, ...) come from its other parts.
    """

    config: KubeSchedulerConfiguration
    profiles: dict[str, Framework]
    queue: PriorityQueue
    cache: Cache
    snapshot: Snapshot
    cluster: ClusterState
    clock: Clock
    sink: EventSink
    extenders: list[Any]
    batches: dict[str, OpportunisticBatch]
    batchable: dict[str, list[Any] | None]
    next_start_node_index: int
    recorded_node_list: Any  # the node list the last `node_list` event gave (its snapshot index)
    waiting_pods: dict[str, WaitingPod]
    _deferred_moves: list[Any]

    # ---- the scheduling cycle ------------------------------------------------------------------
    def schedule_one(self) -> bool:
        """Pop one pod and run its scheduling cycle (and, unless it waits at Permit, its binding
        cycle). False when activeQ is empty."""
        qpi = self.queue.pop()
        if qpi is None and self.bind_updates.pending():
            # An idle scheduler's Pop waits; the binding goroutine's updates arrive meanwhile.
            self.bind_updates.deliver(self)
            qpi = self.queue.pop()
        if qpi is None:
            return False
        self.bind_updates.deliver(self)  # the previous binding's update: this pod is in flight
        pod = self.cluster.pods.get(qpi.pod.key, qpi.pod)
        fwk = self.profiles[pod.scheduler_name]
        self.sink.emit("cycle_started", cycle=self.queue.scheduling_cycle, pod=pod.key,
                       profile=fwk.profile_name, attempts=qpi.attempts, priority=pod.priority)
        if pod.deletion_timestamp is not None:
            self._k8s_event("Warning", "FailedScheduling", pod.key,
                            f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
            self.queue.done(pod.uid)
            return True
        if self.cache.is_assumed_pod(pod):
            self.queue.done(pod.uid)
            return True
        state = CycleState()
        result, assumed_qpi, status, nominating = self.scheduling_cycle(state, fwk, qpi, pod)
        if status is not None and status.code != Code.SUCCESS:
            self.handle_scheduling_failure(fwk, assumed_qpi, status, nominating)
            return True
        if status is not None and status.code == Code.SUCCESS and result.suggested_host == "":
            return True
        self.binding_cycle(state, fwk, result, assumed_qpi)
        return True

    def scheduling_cycle(self, state: CycleState, fwk: Framework, qpi: QueuedPodInfo, pod: Pod
                         ) -> tuple[ScheduleResult, QueuedPodInfo, Status | None, str | None]:
        """Returns (result, qpi, status, nominating) where nominating is None (leave the
        nomination), "" (clear it) or a node name."""
        try:
            result = schedule_pod(self, fwk, state, pod)
        except SchedulingError as e:
            return ScheduleResult(), qpi, e.status, ""
        except FitError as fe_:
            if not fwk.has_post_filter_plugins():
                return ScheduleResult(), qpi, fit_status(fe_), ""
            pf_result, pf_status = fwk.run_post_filter_plugins(state, pod, fe_.diagnosis.node_to_status)
            fe_.diagnosis.post_filter_msg = pf_status.message() if pf_status is not None else ""
            nominating = pf_result.nominated_node_name if pf_result is not None else None
            return ScheduleResult(), qpi, fit_status(fe_), nominating

        host = result.suggested_host
        assumed_pod = replace_fields(pod, node_name=host)
        assumed_qpi = replace_fields(qpi, pod_info=PodInfo(assumed_pod))
        try:
            self.cache.assume_pod(assumed_pod, assumed_qpi.pod_info)
        except CacheError as e:
            return result, assumed_qpi, Status.error(str(e)), ""
        self.queue.delete_nominated_pod_if_exists(assumed_pod)
        self.sink.emit("assumed", pod=pod.key, node=host)

        st = fwk.run_reserve_plugins_reserve(state, assumed_pod, host)
        self._emit_point("Reserve", pod, st)
        if st is not None and st.code != Code.SUCCESS:
            fwk.run_reserve_plugins_unreserve(state, assumed_pod, host)
            self._forget(assumed_pod)
            return result, assumed_qpi, self._single_node_failure(pod, host, st), ""

        st, waits = fwk.run_permit_plugins(state, assumed_pod, host)
        self._emit_point("Permit", pod, st)
        if st is not None and st.code not in (Code.SUCCESS, Code.WAIT):
            fwk.run_reserve_plugins_unreserve(state, assumed_pod, host)
            self._forget(assumed_pod)
            return result, assumed_qpi, self._single_node_failure(pod, host, st), ""
        if st is not None and st.code == Code.WAIT:
            now = self.clock.now()
            self.waiting_pods[pod.key] = WaitingPod(assumed_qpi, state, fwk, host,
                                                    {p: now + t for p, t in waits.items()}, dict(waits))
            for p, t in waits.items():
                self.sink.emit("permit_wait", pod=pod.key, node=host, plugin=p, timeout=t)
            return ScheduleResult(), assumed_qpi, Status(Code.SUCCESS), None
        return result, assumed_qpi, None, None

    # ---- the binding cycle ------------------------------------------------------------------------
    def binding_cycle(self, state: CycleState, fwk: Framework, result: ScheduleResult,
                       qpi: QueuedPodInfo) -> None:
        pod = qpi.pod
        host = result.suggested_host or pod.node_name
        st = fwk.run_pre_bind_pre_flights(state, pod, host)
        if st is not None and (st.code == Code.ERROR or st.is_rejected()):
            self.handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        if st is None:
            # Some PreBind plugin has work: tell the world where the pod is headed.
            self.set_nominated_node_name(pod, host)
        self.queue.done(pod.uid)
        st = fwk.run_pre_bind_plugins(state, pod, host)
        self._emit_point("PreBind", pod, st)
        if st is not None and st.code != Code.SUCCESS:
            self.handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        st = self.extenders_binding(pod, host)
        if st is False:
            st = fwk.run_bind_plugins(state, pod, host)
        self._emit_point("Bind", pod, st)
        if st is not None and st.code != Code.SUCCESS:
            self.handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        self.cache.finish_binding(pod, self.clock.now())
        self._k8s_event("Normal", "Scheduled", pod.key,
                        f"Successfully assigned {pod.namespace}/{pod.name} to {host}")
        fwk.run_post_bind_plugins(state, pod, host)
        # The API now has the pod assigned; the informer reports it after the next Pop.
        cur = self.cluster.pods.get(pod.key)
        if cur is not None:
            new = replace_fields(cur, node_name=host, nominated_node_name="")
            self.cluster.put_pod(new)
            self.cluster.touched(pod.key)
            self.bind_updates.add(cur)

    def handle_binding_cycle_error(self, state: CycleState, fwk: Framework, qpi: QueuedPodInfo,
                                    host: str, st: Status) -> None:
        pod = qpi.pod
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        if self.sink.wants("extension_point"):
            # Unreserve returns nothing; the event names the plugins it ran, in its (reverse) order.
            self.sink.emit("extension_point", cycle=self.queue.scheduling_cycle, pod=pod.key, point="Unreserve",
                           code="Success", reasons=[], plugin=", ".join(pl.name for pl in reversed(fwk.reserve_plugins)))
        try:
            self.cache.forget_pod(pod)
        except CacheError:
            pass
        else:
            self.sink.emit("forgotten", pod=pod.key, node=host, why=st.message())
            if st.is_rejected():
                uid = pod.uid
                self._deferred_moves.append(lambda: self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, pod, None, lambda p: p.uid != uid))
            else:
                self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, pod, None, None)
        unassigned = dataclasses.replace(qpi, pod_info=PodInfo(dataclasses.replace(pod, node_name="")))
        self.handle_scheduling_failure(fwk, unassigned, st, "")
        while self._deferred_moves:
            self._deferred_moves.pop(0)()

    def extenders_binding(self, pod: Pod, host: str) -> Status | None | bool:
        """False when no extender binds this pod (the Bind plugins do it)."""
        for ext in self.extenders:
            if not ext.is_binder() or not ext.is_interested(pod):
                continue
            err = self.call_extender_bind(ext, pod, host)
            if err is not None and ext.is_ignorable():
                continue
            if err is not None:
                return Status.error(err)
            bind_st = self.bind_pod(pod, host)
            return bind_st
        return False

    # ---- failures ----------------------------------------------------------------------------
    def handle_scheduling_failure(self, fwk: Framework, qpi: QueuedPodInfo, status: Status,
                                   nominating: str | None) -> None:
        pod = qpi.pod
        fit = status.cause if isinstance(status.cause, FitError) else None
        if fit is not None:
            qpi.unschedulable_plugins = set(fit.diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(fit.diagnosis.pending_plugins)
        msg = status.message() if fit is None else fit.message()
        cur = self.cluster.pods.get(pod.key)
        if cur is None:
            self.queue.done(pod.uid)
        elif cur.node_name:
            self.queue.done(pod.uid)
        else:
            qpi.pod_info = PodInfo(cur)
            self.queue.add_unschedulable_if_not_present(qpi, self.queue.scheduling_cycle)
        if nominating is not None and cur is not None and not cur.node_name:
            self.queue.add_nominated_pod(qpi.pod_info, NominatingInfo(nominating, NominatingMode.OVERRIDE))
        elif cur is not None and not cur.node_name:
            self.queue.add_nominated_pod(qpi.pod_info, None)
        msg = truncate_message(msg)
        self._k8s_event("Warning", "FailedScheduling", pod.key, msg)
        rec = self.cluster.records.get(pod.key)
        if rec is not None and cur is not None:
            rec.message = msg
            self.cluster.touched(pod.key)
        if nominating is not None and cur is not None and not cur.node_name:
            self.set_nominated_node_name(cur, nominating)

    # ---- helpers of the cycles ------------------------------------------------------------------
    def _single_node_failure(self, pod: Pod, host: str, st: Status) -> Status:
        if not st.is_rejected():
            return st
        d = Diagnosis()
        d.node_to_status.set(host, st)
        d.add_plugin_status(st)
        s = fit_status(FitError(pod, 1, d))
        s.code = st.code
        return s

    def _emit_point(self, point: str, pod: Pod, st: Status | None) -> None:
        if not self.sink.wants("extension_point"):  # each pod's every point: skip its fields
            return
        self.sink.emit("extension_point", cycle=self.queue.scheduling_cycle, pod=pod.key, point=point,
                       code=(st.code.label if st else "Success"), reasons=(st.reasons if st else []),
                       plugin=(st.plugin if st else ""))

    def _forget(self, pod: Pod) -> None:
        try:
            self.cache.forget_pod(pod)
        except CacheError:
            pass
        self.sink.emit("forgotten", pod=pod.key, node=pod.node_name)

    # ---- Permit waits ----------------------------------------------------------------------------
    def allow_waiting_pod(self, pod_key: str, plugin: str) -> None:
        wp = self.waiting_pods.get(pod_key)
        if wp is None:
            return
        wp.pending.pop(plugin, None)
        if not wp.pending:
            del self.waiting_pods[pod_key]
            self.binding_cycle(wp.state, wp.fwk, ScheduleResult(wp.node, 1, 1), wp.qpi)

    def _reject_waiting_pod(self, wp: WaitingPod, msg: str, plugin: str = "") -> None:
        st = Status(Code.UNSCHEDULABLE, msg, plugin=plugin)
        d = Diagnosis()
        d.node_to_status.set(wp.node, st)
        if plugin:
            d.unschedulable_plugins.add(plugin)
        self.handle_binding_cycle_error(wp.state, wp.fwk, wp.qpi, wp.node,
                                         fit_status(FitError(wp.qpi.pod, 1, d), code=Code.UNSCHEDULABLE))

    def expire_permit_waits(self) -> None:
        if not self.waiting_pods:  # asked before every step; usually nobody waits
            return
        now = self.clock.now()
        for key in sorted(self.waiting_pods):
            wp = self.waiting_pods[key]
            expired = [p for p, dl in wp.pending.items() if dl <= now]
            if expired:
                del self.waiting_pods[key]
                plugin = expired[0]
                waited = wp.timeouts.get(plugin, 0.0)
                self._reject_waiting_pod(
                    wp, f"rejected due to timeout after waiting {go_duration(waited)} at plugin {plugin}", plugin)

    def due_permit_wait(self) -> WaitingPod | None:
        """The waiting pod whose Permit timeout is due first (earliest deadline, then the one
        that started waiting first), or None."""
        if not self.waiting_pods:
            return None
        now = self.clock.now()
        best = None
        for wp in self.waiting_pods.values():
            dl = min(wp.pending.values()) if wp.pending else None
            if dl is not None and dl <= now and (best is None or dl < best[0]):
                best = (dl, wp)
        return None if best is None else best[1]

    def expire_permit_wait(self, wp: WaitingPod) -> None:
        """Reject one waiting pod whose timeout passed (upstream: its own timer fires)."""
        now = self.clock.now()
        del self.waiting_pods[wp.qpi.pod.key]
        plugin = next(p for p, dl in wp.pending.items() if dl <= now)
        waited = wp.timeouts.get(plugin, 0.0)
        self._reject_waiting_pod(
            wp, f"rejected due to timeout after waiting {go_duration(waited)} at plugin {plugin}", plugin)

    def next_permit_deadline(self) -> float | None:
        return next_deadline(self.waiting_pods)


def num_feasible_nodes_to_find(sched: ScheduleOne, percentage: int | None, num_all_nodes: int) -> int:
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


def schedule_pod(sched: ScheduleOne, fwk: Framework, state: CycleState, pod: Pod) -> ScheduleResult:
    """Raises FitError / SchedulingError when no node is suggested."""
    sched.cache.update_snapshot(sched.snapshot)
    num_nodes = sched.snapshot.num_nodes()
    if sched.sink.wants("snapshot"):
        updated, rebuilt = sched.cache.last_update
        sched.sink.emit("snapshot", cycle=sched.queue.scheduling_cycle, pod=pod.key,
                        generation=sched.snapshot.generation, updated=updated, rebuilt=rebuilt, nodes=num_nodes)
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
        sched.sink.emit("selected", cycle=sched.queue.scheduling_cycle, pod=pod.key, node=host,
                        score=None, ties=[host], hinted=bool(diagnosis.node_hint))
        return ScheduleResult(host, 1 + len(diagnosis.node_to_status), 1)
    if (fastpath.select_applies(sched.extenders, batch, diagnosis.signature)
            and sched.feature_gates.node_score_heap_tie_break):
        report = sched.sink.wants("scores") or sched.sink.wants("selected")
        host, totals, columns = fastpath.prioritize_and_select(fwk, state, pod, feasible, relative=not report)
        if report:
            _emit_scores_and_selected(sched, fwk, state, pod, feasible, host, totals, columns)
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


def find_nodes_that_fit_pod(sched: ScheduleOne, fwk: Framework, state: CycleState,
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
        diagnosis.signature = sign_pod(fwk, sched.batchable[fwk.profile_name], pod, batch)
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
            sched.sink.emit("nominated_node_tried", cycle=sched.queue.scheduling_cycle, pod=pod.key,
                            node=ni.name, feasible=bool(feasible))
            if feasible:
                return feasible, diagnosis

    nodes = all_nodes
    if pre_res is not None and not pre_res.all_nodes():
        wanted = pre_res.node_names or set()
        # Upstream ranges over a Go map here (random order); node-tree order is one of them.
        nodes = [ni for ni in all_nodes if ni.name in wanted]
        diagnosis.node_to_status.absent_nodes_status = prefilter_result_absent_status(
            sched.feature_gates, unsched_plugins)
    feasible = find_nodes_that_pass_filters(sched, fwk, state, pod, diagnosis, nodes)
    processed = len(feasible) + len(diagnosis.node_to_status)
    if all_nodes:
        sched.next_start_node_index = (sched.next_start_node_index + processed) % len(all_nodes)
    after_ext = find_nodes_that_pass_extenders(sched, pod, feasible, diagnosis.node_to_status)
    if len(after_ext) != len(feasible):
        diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
    return after_ext, diagnosis


def _has_scoring(sched: ScheduleOne, fwk: Framework) -> bool:
    return fwk.has_score_plugins() or any(e.is_prioritizer() for e in sched.extenders)


def find_nodes_that_pass_filters(sched: ScheduleOne, fwk: Framework, state: CycleState, pod: Pod,
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

    has_nominated = sched.queue.nominator.has_node_nominations()
    record = None
    if sched.sink.wants("filter_verdicts"):
        record = FilterRecord([pl.name for pl in fwk.filter_plugins], state.skip_filter_plugins)
    feasible: list[NodeInfo] | None = None
    try:
        if fastpath.filters_apply(has_nominated):
            feasible = fastpath.pass_filters(fwk, state, pod, diagnosis, nodes, start, to_find, record)
        else:
            feasible = walk_filters(sched, fwk, state, pod, diagnosis, nodes, start, to_find, has_nominated, record)
        return feasible
    finally:
        if record is not None:
            _record_filter_walk(sched, pod, nodes, nominated, to_find, start, record)
            state.write(FEASIBLE_NAMES_KEY, FeasibleNames(feasible, record.feasible_run()))


def _record_filter_walk(sched: ScheduleOne, pod: Pod, nodes: list[NodeInfo], nominated: bool,
                        to_find: int, start: int, record: FilterRecord) -> None:
    """The `filter_verdicts` event, preceded by a `node_list` event when the list the walk went
    over is not the one last recorded: a reader needs the list to know which nodes the walk
    did not reach, and it stays the same from cycle to cycle until a node comes or goes, so
    thousands of names are written once instead of every cycle."""
    cycle = sched.queue.scheduling_cycle
    table = None
    key: Any = None
    if nodes is sched.snapshot.list():  # the whole list: its names are shared cycle to cycle
        key = index = sched.snapshot.index
        table = table_for(index, lambda: list(index))
    if key is None or key is not getattr(sched, "recorded_node_list", None):
        names = table.run([(0, len(table.names))]) if table is not None else [ni.name for ni in nodes]
        sched.sink.emit("node_list", cycle=cycle, pod=pod.key, nodes=names)
    sched.recorded_node_list = key  # a narrowed list (None) is written again next time
    sched.sink.emit("filter_verdicts", cycle=cycle, pod=pod.key, nominated_only=nominated,
                    num_to_find=to_find, start_index=start,
                    **record.fields(nodes, start, table, getattr(sched.sink, "text_only", False)))


def walk_filters(sched: ScheduleOne, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                 nodes: list[NodeInfo], start: int, to_find: int, has_nominated: bool,
                 record: FilterRecord | None = None) -> list[NodeInfo]:
    """The plain walk: node after node from `start`, each through every Filter plugin (twice
    with nominated pods, when there are any), recording each plugin's verdict into `record`
    when someone listens. fastpath.pass_filters gives the same result faster."""
    num_all = len(nodes)
    feasible: list[NodeInfo] = []
    statuses: list[tuple[str, Status]] = []
    error: Status | None = None
    run = fwk.run_filter_plugins_with_nominated_pods if has_nominated else fwk.run_filter_plugins
    for i in range(num_all):
        ni = nodes[(start + i) % num_all]
        if record is not None:
            st, per_plugin = _verbose_filter(fwk, state, pod, ni, has_nominated)
        else:
            st = run(state, pod, ni)
        if st is None or st.code == Code.SUCCESS:
            if len(feasible) >= to_find:
                if record is not None:
                    record.add_cancelled(ni.name)
                break
            feasible.append(ni)
        elif st.code == Code.ERROR:
            error = st
        else:
            statuses.append((ni.name, st))
        if record is not None:
            record.add_row(ni.name, per_plugin)
        if error is not None:
            break
    for name, st in statuses:
        diagnosis.node_to_status.set(name, st)
        diagnosis.add_plugin_status(st)
    if record is not None:
        record.num_feasible = len(feasible)
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


def find_nodes_that_pass_extenders(sched: ScheduleOne, pod: Pod, feasible: list[NodeInfo],
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


def prioritize_nodes(sched: ScheduleOne, fwk: Framework, state: CycleState, pod: Pod,
                     nodes: list[NodeInfo]) -> list[NodePluginScores]:
    if not sched.extenders and not fwk.has_score_plugins():
        return [NodePluginScores(ni.name, [], 1) for ni in nodes]
    st = fwk.run_pre_score_plugins(state, pod, nodes)
    if st is not None and st.code != Code.SUCCESS:
        raise SchedulingError(st)
    scores, st, columns = fwk.run_score_plugins(state, pod, nodes)
    if st is not None:
        raise SchedulingError(st)
    assert scores is not None
    if sched.extenders:
        sched.apply_extender_scores(pod, nodes, scores, columns)
    if columns is not None:
        if sched.extenders:  # extenders add to the totals: store them (else the plugins' sum)
            columns["totals"] = [s.total_score for s in scores]
        sched.sink.emit("scores", cycle=sched.queue.scheduling_cycle, pod=pod.key, **columns,
                        weights=dict(fwk.score_weights))
    return scores


def _emit_scores_and_selected(sched: ScheduleOne, fwk: Framework, state: CycleState, pod: Pod,
                              nodes: list[NodeInfo], host: str, totals: list[int],
                              columns: dict[str, Any] | None) -> None:
    """The events prioritize_nodes and select_host emit, for the fast path's result. When the
    scored nodes are the walk's feasible nodes as the filter record placed them in the node
    list's name table, the scored nodes and the ties are given as runs of that table
    (util.name_table.NameRun: lists like any other; NameSpan, no list at all, when only the
    trace's writer reads them), so the trace copies their JSON text instead of encoding
    thousands of names per cycle."""
    cycle = sched.queue.scheduling_cycle
    if columns is not None:  # its nodes are a table run when they are the walk's feasible list
        sched.sink.emit("scores", cycle=cycle, pod=pod.key, **columns, weights=dict(fwk.score_weights))
    array = getattr(totals, "array", None)  # totals.VectorTotals: compared in one vector pass
    best = max(totals) if array is None else int(array.max())
    names = columns["nodes"] if columns is not None else [ni.name for ni in nodes]
    if (isinstance(names, TableRun) and names.table is not None) or isinstance(names, NameSpanPick):
        flags = bytes(map(eq, totals, repeat(best))) if array is None else (array == best).tobytes()
        ties: Any = names.select(flags)
    else:
        ties = list(compress(names, map(eq, totals, repeat(best))))
    sched.sink.emit("selected", cycle=cycle, pod=pod.key, node=host, score=best, ties=ties)


def _score_less(a: NodePluginScores, b: NodePluginScores) -> bool:
    return a.total_score > b.total_score or (a.total_score == b.total_score and a.randomizer > b.randomizer)


def select_host(sched: ScheduleOne, pod: Pod,
                scores: list[NodePluginScores]) -> tuple[str, list[NodePluginScores]]:
    """The first pop of Go's container/heap over the scores in walk order: highest total wins;
    among equal totals, whichever heap.Init leaves at the root (not a random choice).
    Returns the winner and the remaining heap (opportunistic batching hints from it)."""
    if not sched.feature_gates.node_score_heap_tie_break:
        return select_host_reservoir(sched, pod, scores), []
    h = list(scores)
    heap_init(h, _score_less)
    best = heap_pop(h, _score_less)
    if sched.sink.wants("selected"):
        ties = [s.name for s in scores if s.total_score == best.total_score]
        sched.sink.emit("selected", cycle=sched.queue.scheduling_cycle, pod=pod.key, node=best.name,
                        score=best.total_score, ties=ties)
    return best.name, h


def truncate_message(msg: str) -> str:
    """Cut to the Event note limit as upstream does: in bytes, with " ..." appended."""
    raw = msg.encode("utf-8")
    if len(raw) <= NOTE_LENGTH_LIMIT:
        return msg
    return raw[: NOTE_LENGTH_LIMIT - 4].decode("utf-8", errors="replace") + " ..."
