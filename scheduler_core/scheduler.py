"""The scheduler: queue + cache + profiles, the scheduling and binding cycles, and the event
handlers an informer would call (upstream scheduler.go, schedule_one.go, eventhandlers.go).

Everything happens on a virtual clock and in one thread. Where upstream runs the binding cycle
in a goroutine, it runs here right after the scheduling cycle at the same virtual time (or later,
when a Permit plugin makes the pod wait). Where upstream's informers deliver an API change, the
`Scheduler` changes `ClusterState` and calls the matching `on_*` handler itself.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Node, Pod, Taint
from scheduler_core.backend.cache.cache import Cache, CacheError
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode
from scheduler_core.backend.queue.scheduling_queue import PriorityQueue, build_queueing_hint_entries
from scheduler_core.cluster import ClusterState, PodRecord
from scheduler_core.config.types import KubeSchedulerConfiguration
from scheduler_core.controllers.tainteviction import TaintEvictionController
from scheduler_core.events import EventSink
from scheduler_core.extender import EXTENDER_NAME, ExtenderTranscript, build_extenders, effective_config
from scheduler_core.framework import events as fe
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.plugins.registry import get_registry
from scheduler_core.framework.runtime.batch import OpportunisticBatch, batchable_plugins
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import PodInfo, QueuedPodInfo
from scheduler_core.schedule_one import (
    Diagnosis,
    FitError,
    ScheduleResult,
    SchedulingError,
    schedule_pod,
)

NOTE_LENGTH_LIMIT = 1024


class VirtualClock:
    """Seconds since the run started; only the simulation loop moves it."""

    __slots__ = ("t",)

    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def now(self) -> float:
        return self.t


@dataclasses.dataclass
class WaitingPod:
    """A pod parked at Permit: its cycle state, node and the plugins still to allow it."""

    qpi: QueuedPodInfo
    state: CycleState
    fwk: Framework
    node: str
    pending: dict[str, float]  # plugin -> deadline (virtual seconds)
    timeouts: dict[str, float] = dataclasses.field(default_factory=dict)  # plugin -> timeout asked


def go_duration(seconds: float) -> str:
    """Go's time.Duration String() for whole and fractional seconds ("10s", "1m30s", "1.5s")."""
    if seconds == 0:
        return "0s"
    m, s = divmod(seconds, 60.0)
    h, m = divmod(int(m), 60)
    sec = f"{s:.9f}".rstrip("0").rstrip(".") + "s"
    if h:
        return f"{h}h{m}m{sec}"
    if m:
        return f"{m}m{sec}"
    return sec


def truncate_message(msg: str) -> str:
    """Cut to the Event note limit as upstream does: in bytes, with " ..." appended."""
    raw = msg.encode("utf-8")
    if len(raw) <= NOTE_LENGTH_LIMIT:
        return msg
    return raw[: NOTE_LENGTH_LIMIT - 4].decode("utf-8", errors="replace") + " ..."


class Scheduler:
    def __init__(self, scenario: Scenario, seed: int = 0, sink: EventSink | None = None,
                 clock: VirtualClock | None = None, graceful_termination: bool = False,
                 extender_transcript: ExtenderTranscript | None = None) -> None:
        self.clock = clock or VirtualClock()
        self.sink = sink or EventSink(self.clock.now, enabled=False)
        self.rng = random.Random(seed)
        self.seed = seed
        # Extenders' ignoredByScheduler resources become NodeResourcesFit's ignoredResources.
        self.config: KubeSchedulerConfiguration = effective_config(scenario.config)
        self.cluster = ClusterState.from_scenario(scenario)
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.extender_transcript = extender_transcript if extender_transcript is not None else ExtenderTranscript()
        self.extenders: list[Any] = build_extenders(self.config, self.extender_transcript, self)
        self.next_start_node_index = 0
        self.waiting_pods: dict[str, WaitingPod] = {}
        self.start_times: dict[str, float] = {}
        self._deferred_moves: list = []
        self.graceful_termination = graceful_termination
        self.pending_deletions: dict[str, tuple[float, str]] = {}  # pod key -> (when, deleted by)

        registry = get_registry()
        self.profiles: dict[str, Framework] = {}
        for prof in self.config.profiles:
            self.profiles[prof.scheduler_name] = Framework(prof, self, registry)
        first = next(iter(self.profiles.values()))
        # With extenders, a pod they rejected ("Extender" plugin) is requeued by any event.
        ext_hint = [(EXTENDER_NAME, None)] if self.extenders else []
        hint_map = {name: build_queueing_hint_entries([*ext_hint, *fwk.enqueue_extensions()])
                    for name, fwk in self.profiles.items()}
        pre_enqueue = {name: fwk.pre_enqueue_plugins for name, fwk in self.profiles.items()}
        self.queue = PriorityQueue(
            less=first.less,
            clock=self.clock,
            pod_initial_backoff_seconds=float(self.config.pod_initial_backoff_seconds),
            pod_max_backoff_seconds=float(self.config.pod_max_backoff_seconds),
            queueing_hint_map=hint_map,
            pre_enqueue_plugins=pre_enqueue,
        )
        self._attach_queue_callbacks()
        self.taint_manager = TaintEvictionController(on_event=self._on_taint_manager_event)
        # Opportunistic batching (beta, on by default in v1.35), for each profile whose plugins
        # can all sign pods (and that has no extenders).
        self.batchable = {name: batchable_plugins(fwk) for name, fwk in self.profiles.items()}
        self.batches = {name: OpportunisticBatch() for name, pl in self.batchable.items() if pl is not None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Re-attach the callbacks components drop when pickled (checkpoints)."""
        self.__dict__.update(state)
        self.taint_manager.set_event_callback(self._on_taint_manager_event)
        self._attach_queue_callbacks()

    def _attach_queue_callbacks(self) -> None:
        self.queue.attach_callbacks(on_move=self._on_queue_move, pod_lister=self.cluster.get_pod,
                                    namespace_labels=self.cluster.namespace_labels, clock=self.clock)

    # ---- events ---------------------------------------------------------------------------
    def _on_queue_move(self, pod_key: str, from_q: str, to_q: str, reason: str,
                       event_label: str | None = None) -> None:
        if self.sink.enabled:
            self.sink.emit("queue_move", pod=pod_key, **{"from": from_q}, to=to_q, reason=reason,
                           event=event_label)

    def _on_taint_manager_event(self, kind: str, **fields: Any) -> None:
        if kind == "k8s_event":
            self._k8s_event(fields["eventType"], fields["reason"], fields["object"], fields["message"])
        elif self.sink.enabled:
            self.sink.emit(kind, **fields)

    def _k8s_event(self, type_: str, reason: str, obj: str, message: str) -> None:
        self.cluster.record_event(self.clock.now(), type_, reason, obj, message)
        if self.sink.enabled:
            self.sink.emit("k8s_event", eventType=type_, reason=reason, object=obj, message=message)

    def responsible_for_pod(self, pod: Pod) -> bool:
        return pod.scheduler_name in self.profiles

    # ---- API changes (each followed by the informer handler upstream would run) -------------
    def create_node(self, node: Node) -> None:
        self.cluster.nodes[node.name] = node
        self.on_node_add(node)

    def update_node(self, new: Node) -> None:
        old = self.cluster.nodes[new.name]
        self.cluster.nodes[new.name] = new
        self.on_node_update(old, new)

    def delete_node(self, name: str) -> None:
        node = self.cluster.nodes.pop(name)
        self.on_node_delete(node)
        # Pods bound to a deleted node are removed (pod garbage collection).
        for key in [k for k, p in self.cluster.pods.items() if p.node_name == name]:
            self.delete_pod(key, by="NodeDeleted")

    def create_pod(self, pod: Pod) -> None:
        if pod.key not in self.cluster.records:
            self.cluster.all_pods.append(pod.key)
        pod = dataclasses.replace(pod, creation_time=self.clock.now())
        self.cluster.pods[pod.key] = pod
        rec = PodRecord()
        if pod.node_name:
            rec.status, rec.node, rec.bound_at = "Bound", pod.node_name, self.clock.now()
            self.start_times[pod.key] = self.clock.now()
        self.cluster.records[pod.key] = rec
        self.on_pod_add(pod)

    def update_pod(self, new: Pod) -> None:
        old = self.cluster.pods.get(new.key)
        if old is None:
            return
        self.cluster.pods[new.key] = new
        self.on_pod_update(old, new)

    def delete_pod(self, key: str, by: str | None = None) -> Pod | None:
        pod = self.cluster.pods.pop(key, None)
        if pod is None:
            return None
        self.pending_deletions.pop(key, None)
        rec = self.cluster.records[key]
        rec.status, rec.node, rec.deleted_by, rec.deleted_at = "Deleted", None, by, self.clock.now()
        if self.sink.enabled:
            self.sink.emit("pod_deleted", pod=key, by=by, node=pod.node_name)
        self.taint_manager.pod_deleted(key)
        self.on_pod_delete(pod)
        return pod

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch status.nominatedNodeName (an API update the informer then delivers)."""
        cur = self.cluster.pods.get(pod.key)
        if cur is None or cur.nominated_node_name == node_name:
            return
        new = dataclasses.replace(cur, nominated_node_name=node_name)
        if self.sink.enabled:
            self.sink.emit("nominated", pod=pod.key, node=node_name)
        self.update_pod(new)

    # ---- informer handlers (eventhandlers.go) ------------------------------------------------
    def on_node_add(self, node: Node) -> None:
        self.cache.add_node(node)
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_NODE_ADD, None, node, None)
        self.taint_manager.node_updated(None, node, self._pods_on(node.name), self.clock.now())

    def on_node_update(self, old: Node, new: Node) -> None:
        self.cache.update_node(old, new)
        for evt in fe.node_scheduling_properties_change(new, old):
            self.queue.move_all_to_active_or_backoff_queue(evt, old, new, None)
        self.taint_manager.node_updated(old, new, self._pods_on(new.name), self.clock.now())

    def on_node_delete(self, node: Node) -> None:
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_NODE_DELETE, node, None, None)
        try:
            self.cache.remove_node(node)
        except CacheError:
            pass
        self.taint_manager.node_updated(node, None, [], self.clock.now())

    def on_pod_add(self, pod: Pod) -> None:
        if pod.node_name:
            self._add_assigned_pod_to_cache(pod)
        elif self.responsible_for_pod(pod):
            self.queue.add(pod)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        if old.node_name:
            try:
                self.cache.update_pod(old, new)
            except CacheError:
                pass
            for evt in fe.pod_scheduling_properties_change(new, old):
                self.queue.move_all_to_active_or_backoff_queue(evt, old, new, None)
        elif new.node_name:
            self._add_assigned_pod_to_cache(new)
            if self.responsible_for_pod(old):
                self.queue.delete(old)
        elif self.responsible_for_pod(old):
            if self.cache.is_assumed_pod(new):
                return
            self.queue.update(old, new)
            if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
                prio = old.priority
                self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, old, None, lambda p, prio=prio: p.priority <= prio)

    def on_pod_delete(self, pod: Pod) -> None:
        if pod.node_name:
            try:
                self.cache.remove_pod(pod)
            except CacheError:
                pass
            self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, pod, None, None)
        elif self.responsible_for_pod(pod):
            self.queue.delete(pod)
            if self.cache.is_assumed_pod(pod):
                self._handle_assumed_pod_deletion(pod)
            elif pod.nominated_node_name:
                prio = pod.priority
                self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, pod, None, lambda p, prio=prio: p.priority <= prio)

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        assumed = self.cache.get_pod(pod)
        if assumed is None:
            return
        wp = self.waiting_pods.pop(pod.key, None)
        if wp is None:
            try:
                self.cache.forget_pod(assumed)
            except CacheError:
                pass
        else:
            self._reject_waiting_pod(wp, "pod deleted")
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, assumed, None, None)

    def _add_assigned_pod_to_cache(self, pod: Pod) -> None:
        try:
            self.cache.add_pod(pod)
        except CacheError:
            pass
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_ADD, None, pod, None)
        node = self.cluster.nodes.get(pod.node_name)
        self.taint_manager.pod_updated(pod, node, self.clock.now())

    def _pods_on(self, node_name: str) -> list[Pod]:
        return [p for p in self.cluster.pods.values() if p.node_name == node_name]

    # ---- the scheduling cycle ------------------------------------------------------------------
    def schedule_one(self) -> bool:
        """Pop one pod and run its scheduling cycle (and, unless it waits at Permit, its binding
        cycle). False when activeQ is empty."""
        qpi = self.queue.pop()
        if qpi is None:
            return False
        pod = self.cluster.pods.get(qpi.pod.key, qpi.pod)
        fwk = self.profiles[pod.scheduler_name]
        if self.sink.enabled:
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
        result, assumed_qpi, status, nominating = self._scheduling_cycle(state, fwk, qpi, pod)
        if status is not None and status.code != Code.SUCCESS:
            self._handle_scheduling_failure(fwk, assumed_qpi, status, nominating)
            return True
        if status is not None and status.code == Code.SUCCESS and result.suggested_host == "":
            return True
        self._binding_cycle(state, fwk, result, assumed_qpi)
        return True

    def _scheduling_cycle(self, state: CycleState, fwk: Framework, qpi: QueuedPodInfo, pod: Pod):
        """Returns (result, qpi, status, nominating) where nominating is None (leave the
        nomination), "" (clear it) or a node name."""
        try:
            result = schedule_pod(self, fwk, state, pod)
        except SchedulingError as e:
            return ScheduleResult(), qpi, e.status, ""
        except FitError as fe_:
            if not fwk.has_post_filter_plugins():
                return ScheduleResult(), qpi, _fit_status(fe_), ""
            pf_result, pf_status = fwk.run_post_filter_plugins(state, pod, fe_.diagnosis.node_to_status)
            fe_.diagnosis.post_filter_msg = pf_status.message() if pf_status is not None else ""
            nominating = pf_result.nominated_node_name if pf_result is not None else None
            return ScheduleResult(), qpi, _fit_status(fe_), nominating

        host = result.suggested_host
        assumed_pod = dataclasses.replace(pod, node_name=host)
        assumed_qpi = dataclasses.replace(qpi, pod_info=PodInfo(assumed_pod))
        try:
            self.cache.assume_pod(assumed_pod, assumed_qpi.pod_info)
        except CacheError as e:
            return result, assumed_qpi, Status.error(str(e)), ""
        self.queue.delete_nominated_pod_if_exists(assumed_pod)
        if self.sink.enabled:
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
            if self.sink.enabled:
                for p, t in waits.items():
                    self.sink.emit("permit_wait", pod=pod.key, node=host, plugin=p, timeout=t)
            return ScheduleResult(), assumed_qpi, Status(Code.SUCCESS), None
        return result, assumed_qpi, None, None

    def _single_node_failure(self, pod: Pod, host: str, st: Status) -> Status:
        if not st.is_rejected():
            return st
        d = Diagnosis()
        d.node_to_status.set(host, st)
        d.add_plugin_status(st)
        s = _fit_status(FitError(pod, 1, d))
        s.code = st.code
        return s

    def _emit_point(self, point: str, pod: Pod, st: Status | None) -> None:
        if self.sink.enabled:
            self.sink.emit("extension_point", cycle=self.queue.scheduling_cycle, pod=pod.key, point=point,
                           code=(st.code.label if st else "Success"), reasons=(st.reasons if st else []),
                           plugin=(st.plugin if st else ""))

    def _forget(self, pod: Pod) -> None:
        try:
            self.cache.forget_pod(pod)
        except CacheError:
            pass
        if self.sink.enabled:
            self.sink.emit("forgotten", pod=pod.key, node=pod.node_name)

    # ---- the binding cycle ------------------------------------------------------------------------
    def _binding_cycle(self, state: CycleState, fwk: Framework, result: ScheduleResult,
                       qpi: QueuedPodInfo) -> None:
        pod = qpi.pod
        host = result.suggested_host or pod.node_name
        st = fwk.run_pre_bind_pre_flights(state, pod, host)
        if st is not None and (st.code == Code.ERROR or st.is_rejected()):
            self._handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        if st is None:
            # Some PreBind plugin has work: tell the world where the pod is headed.
            self.set_nominated_node_name(pod, host)
        self.queue.done(pod.uid)
        st = fwk.run_pre_bind_plugins(state, pod, host)
        self._emit_point("PreBind", pod, st)
        if st is not None and st.code != Code.SUCCESS:
            self._handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        st = self._extenders_binding(pod, host)
        if st is False:
            st = fwk.run_bind_plugins(state, pod, host)
        self._emit_point("Bind", pod, st)
        if st is not None and st.code != Code.SUCCESS:
            self._handle_binding_cycle_error(state, fwk, qpi, host, st)
            return
        self.cache.finish_binding(pod, self.clock.now())
        self._k8s_event("Normal", "Scheduled", pod.key,
                        f"Successfully assigned {pod.namespace}/{pod.name} to {host}")
        fwk.run_post_bind_plugins(state, pod, host)
        # The informer now reports the pod as assigned.
        cur = self.cluster.pods.get(pod.key)
        if cur is not None:
            new = dataclasses.replace(cur, node_name=host, nominated_node_name="")
            self.cluster.pods[pod.key] = new
            self.on_pod_update(cur, new)

    def _extenders_binding(self, pod: Pod, host: str) -> Status | None | bool:
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

    def bind_pod(self, pod: Pod, node_name: str) -> Status | None:
        """The API binding (DefaultBinder's call): the pod now runs on node_name."""
        if node_name not in self.cluster.nodes:
            return Status.error(f'nodes "{node_name}" not found')
        rec = self.cluster.records[pod.key]
        rec.status, rec.node, rec.bound_at = "Bound", node_name, self.clock.now()
        self.start_times[pod.key] = self.clock.now()
        if self.sink.enabled:
            self.sink.emit("bound", pod=pod.key, node=node_name)
        return None

    def _handle_binding_cycle_error(self, state: CycleState, fwk: Framework, qpi: QueuedPodInfo,
                                    host: str, st: Status) -> None:
        pod = qpi.pod
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        try:
            self.cache.forget_pod(pod)
        except CacheError:
            pass
        else:
            if st.is_rejected():
                uid = pod.uid
                self._deferred_moves.append(lambda: self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, pod, None, lambda p: p.uid != uid))
            else:
                self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, pod, None, None)
        unassigned = dataclasses.replace(qpi, pod_info=PodInfo(dataclasses.replace(pod, node_name="")))
        self._handle_scheduling_failure(fwk, unassigned, st, "")
        while self._deferred_moves:
            self._deferred_moves.pop(0)()

    # ---- Permit waits ----------------------------------------------------------------------------
    def allow_waiting_pod(self, pod_key: str, plugin: str) -> None:
        wp = self.waiting_pods.get(pod_key)
        if wp is None:
            return
        wp.pending.pop(plugin, None)
        if not wp.pending:
            del self.waiting_pods[pod_key]
            self._binding_cycle(wp.state, wp.fwk, ScheduleResult(wp.node, 1, 1), wp.qpi)

    def _reject_waiting_pod(self, wp: WaitingPod, msg: str, plugin: str = "") -> None:
        st = Status(Code.UNSCHEDULABLE, msg, plugin=plugin)
        d = Diagnosis()
        d.node_to_status.set(wp.node, st)
        if plugin:
            d.unschedulable_plugins.add(plugin)
        self._handle_binding_cycle_error(wp.state, wp.fwk, wp.qpi, wp.node,
                                         _fit_status(FitError(wp.qpi.pod, 1, d), code=Code.UNSCHEDULABLE))

    def expire_permit_waits(self) -> None:
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

    def next_permit_deadline(self) -> float | None:
        dls = [dl for wp in self.waiting_pods.values() for dl in wp.pending.values()]
        return min(dls) if dls else None

    # ---- failures ----------------------------------------------------------------------------
    def _handle_scheduling_failure(self, fwk: Framework, qpi: QueuedPodInfo, status: Status,
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
        if nominating is not None and cur is not None and not cur.node_name:
            self.set_nominated_node_name(cur, nominating)

    # ---- preemption support (Handle) -----------------------------------------------------------
    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None:
        key = victim.key
        if key not in self.cluster.pods:
            return None
        wp = self.waiting_pods.pop(key, None)
        if wp is not None:
            # A victim still waiting at Permit is rejected rather than deleted.
            self._reject_waiting_pod(wp, "preempted", "DefaultPreemption")
        elif self.graceful_termination:
            self._terminate(key, "Preempted", "PreemptionByScheduler")
        else:
            self.delete_pod(key, by="Preempted")
        self._k8s_event("Normal", "Preempted", key, f"Preempted by pod {preemptor.uid} on node {node_name}")
        if self.sink.enabled:
            self.sink.emit("victim_deleted", pod=key, preemptor=preemptor.key, node=node_name,
                           graceful=self.graceful_termination and wp is None)
        return None

    # ---- graceful termination (optional, for teaching) -----------------------------------------
    def _terminate(self, key: str, by: str, reason: str) -> None:
        """Mark the pod terminating (deletionTimestamp, DisruptionTarget condition) and delete it
        when its terminationGracePeriodSeconds have passed on the virtual clock, as a kubelet
        would. The recordings ran without kubelets, so `simulate` deletes at once by default."""
        cur = self.cluster.pods.get(key)
        if cur is None or cur.deletion_timestamp is not None:
            return
        now = self.clock.now()
        new = dataclasses.replace(
            cur, deletion_timestamp=now,
            conditions={**cur.conditions, "DisruptionTarget": "True"},
            condition_reasons={**cur.condition_reasons, "DisruptionTarget": reason})
        self.update_pod(new)
        self.pending_deletions[key] = (now + max(0, cur.termination_grace_period_seconds), by)
        if self.sink.enabled:
            self.sink.emit("pod_terminating", pod=key, by=by,
                           until=now + max(0, cur.termination_grace_period_seconds))

    def next_deletion_time(self) -> float | None:
        return min((t for t, _ in self.pending_deletions.values()), default=None)

    def finish_terminations(self) -> None:
        now = self.clock.now()
        for key, (t, by) in sorted(self.pending_deletions.items(), key=lambda kv: (kv[1][0], kv[0])):
            if t <= now:
                del self.pending_deletions[key]
                self.delete_pod(key, by=by)

    # ---- extenders (HTTP extenders are added by scheduler_core.extender) ---------------------------
    def call_extender_filter(self, ext: Any, pod: Pod, nodes: list) -> tuple[list, dict, dict, str | None]:
        return ext.filter(pod, nodes)

    def apply_extender_scores(self, pod: Pod, nodes: list, scores: list, breakdown: dict | None) -> None:
        from scheduler_core.extender import apply_extender_scores

        apply_extender_scores(self, pod, nodes, scores, breakdown)

    def call_extender_bind(self, ext: Any, pod: Pod, host: str) -> str | None:
        return ext.bind(pod, host)

    # ---- taint manager -----------------------------------------------------------------------------
    def fire_evictions(self) -> None:
        for ev in self.taint_manager.fire_due(self.clock.now()):
            if ev.pod in self.cluster.pods:
                if self.graceful_termination:
                    self._terminate(ev.pod, "TaintManagerEviction", "DeletionByTaintManager")
                else:
                    self.delete_pod(ev.pod, by="TaintManagerEviction")

    # ---- scheduler settings during a run -----------------------------------------------------------
    def set_score_weight(self, profile: str, plugin: str, weight: int) -> None:
        """Change a Score plugin's weight from now on (a restarted scheduler with an edited
        profile). The configuration is updated too, so checkpoints rebuild the same weights."""
        from scheduler_core.config.types import PluginRef, Plugins, PluginSet

        fwk = self.profiles[profile]
        fwk.score_weights[plugin] = weight
        self.config = copy.deepcopy(self.config)  # never the scenario's own object
        for prof in self.config.profiles:
            if prof.scheduler_name != profile:
                continue
            if prof.plugins is None:
                prof.plugins = Plugins()
            multi = prof.plugins.sets.setdefault("multiPoint", PluginSet())
            multi.enabled = [r for r in multi.enabled if r.name != plugin] + [PluginRef(plugin, weight)]
            score = prof.plugins.sets.get("score")
            if score is not None:
                score.enabled = [PluginRef(r.name, weight) if r.name == plugin else r for r in score.enabled]

    # ---- node actions (what users and timelines do) ---------------------------------------------------
    def set_unschedulable(self, node_name: str, value: bool) -> None:
        node = self.cluster.nodes[node_name]
        self.update_node(dataclasses.replace(node, unschedulable=value))

    def add_taint(self, node_name: str, taint: Taint) -> None:
        node = self.cluster.nodes[node_name]
        taints = [t for t in node.taints if not t.match_taint(taint)]
        taints.append(dataclasses.replace(taint, time_added=self.clock.now()))
        self.update_node(dataclasses.replace(node, taints=taints))

    def remove_taint(self, node_name: str, key: str, effect: str = "") -> None:
        node = self.cluster.nodes[node_name]
        taints = [t for t in node.taints if not (t.key == key and (not effect or t.effect == effect))]
        self.update_node(dataclasses.replace(node, taints=taints))

    def set_node_labels(self, node_name: str, labels: dict[str, str | None]) -> None:
        node = self.cluster.nodes[node_name]
        new_labels = dict(node.labels)
        for k, v in labels.items():
            if v is None:
                new_labels.pop(k, None)
            else:
                new_labels[k] = v
        self.update_node(dataclasses.replace(node, labels=new_labels))


def _fit_status(fit: FitError, code: Code = Code.UNSCHEDULABLE) -> Status:
    s = Status(code, fit.message())
    s.cause = fit
    return s


__all__ = ["Scheduler", "VirtualClock", "NodeToStatus"]
