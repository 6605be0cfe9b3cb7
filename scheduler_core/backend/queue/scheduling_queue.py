"""The scheduling queue (upstream `backend/queue/scheduling_queue.go`, PriorityQueue), on a
virtual clock.

Three places a pending pod can be:
- activeQ: ready to be tried, in QueueSort order (`pop` takes the head);
- backoffQ: waiting out its backoff after a failure, then flushed to activeQ (every second);
- the unschedulable pool: rejected (or gated by PreEnqueue) and waiting for a cluster event
  that one of its rejecting plugins says may help (queueing hints), or for the leftover flush
  after 5 minutes.
A popped pod is in flight until `done`; events seen meanwhile decide where it goes if it fails.

There are no goroutines: the periodic flushes are `flush_backoff_q_completed` (upstream every
second, aligned to whole seconds) and `flush_unschedulable_pods_leftover` (every 30 s from
start); `next_wakeup(now)` tells the simulation loop when one of them would change something.
Feature gates as in v1.35: SchedulerQueueingHints GA (on), SchedulerPopFromBackoffQ beta (on).

Virtual-time ties: upstream timestamps come from the wall clock and are never equal, whereas
here many pods share a virtual instant. Each timestamp assignment also records a sequence
number, and the activeQ ordering falls back to it when QueueSort finds two pods equal and their
timestamps are identical, which is what "earlier" would mean upstream.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.backend.queue.active_queue import ActiveQueue, pod_uid
from scheduler_core.backend.queue.backoff_queue import ZERO_TIME, BackoffQueue
from scheduler_core.backend.queue.nominator import NominatingInfo, Nominator
from scheduler_core.backend.queue.unschedulable_pods import UnschedulablePods
from scheduler_core.framework import events as fe
from scheduler_core.framework.types import (
    NO_PLUGINS,
    ActionType,
    ClusterEvent,
    EventResource,
    PodInfo,
    QueuedPodInfo,
    QueueingHint,
)

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1.0
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10.0
UNSCHEDULABLE_LEFTOVER_FLUSH_PERIOD = 30.0
BACKOFF_FLUSH_PERIOD = 1.0

# Queue names as reported to on_move (the UI's vocabulary).
ACTIVE_Q = "activeQ"
BACKOFF_Q = "backoffQ"
UNSCHEDULABLE_Q = "unschedulable"
GATED = "gated"
NONE = "none"

PODTOPOLOGYSPREAD_NAME = "PodTopologySpread"

_EPS = 1e-9


class QueueingStrategy:
    """How to requeue a pod from the unschedulable pool (upstream queueingStrategy)."""

    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


HintFn = Callable[[Pod, Any, Any], Any]
HintEntry = tuple[ClusterEvent, str, "HintFn | None"]
OnMove = Callable[..., None]

OnHintsSkipped = Callable[[str, int, list], None]

# Pods listed by name when a cluster event's hints keep many in the unschedulable pool.
HINT_SKIP_SAMPLE = 10

# What each strategy is called in upstream's queue (the "hint" its log line reports).
STRATEGY_NAMES = {0: "QueueSkip", 1: "QueueAfterBackoff", 2: "QueueImmediately"}


def build_queueing_hint_entries(extensions: Iterable[tuple[str, Any]]) -> list[HintEntry]:
    """One profile's queueing-hint registrations (upstream scheduler.go buildQueueingHintMap).

    `extensions`: (plugin_name, events) for every PreEnqueue/PreFilter/Filter/Reserve/Permit
    plugin of the profile, where events is the plugin's `events_to_register()` (a list of
    ClusterEventWithHint), or None for a plugin without EnqueueExtensions, which is registered for
    every resource (UNROLLED_WILDCARD_EVENTS). A plugin returning an empty list registers nothing
    (its rejections are only undone by the pod's own update, e.g. SchedulingGates). A plugin that
    registers Node/Add but not Node/UpdateNodeTaint also gets UpdateNodeTaint with the default
    (always Queue) hint, as upstream does.
    """
    out: list[HintEntry] = []
    for name, events in extensions:
        if events is None:
            out.extend((ev, name, None) for ev in fe.UNROLLED_WILDCARD_EVENTS)
            continue
        if not events:
            continue
        node_added = node_taint = False
        for ewh in events:
            ev = ewh.event
            if ev.resource == EventResource.NODE:
                node_added = node_added or bool(ev.action_type & ActionType.ADD)
                node_taint = node_taint or bool(ev.action_type & ActionType.UPDATE_NODE_TAINT)
            out.append((ev, name, ewh.queueing_hint_fn))
        if node_added and not node_taint:
            out.append((ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT), name, None))
    return out


def _hint_record(event: ClusterEvent, plugin: str, hint: Any, fn: Any, err: Any, hints_enabled: bool) -> dict[str, Any]:
    """One plugin's answer to one cluster event, as the event stream reports it: its verdict
    (Queue / QueueSkip), and why when no hint function gave it (none registered, the
    SchedulerQueueingHints gate off, or an error, all of which upstream treats as Queue)."""
    rec: dict[str, Any] = {"event": fe.event_label(event), "plugin": plugin,
                           "hint": "QueueSkip" if hint == QueueingHint.SKIP else "Queue"}
    if err:
        rec["error"] = str(err)
    elif fn is None or not hints_enabled:
        rec["default"] = True
    return rec


def _default_pre_enqueue_ok(status: Any) -> bool:
    return status is None or status.is_success()


class PriorityQueue:
    """Upstream PriorityQueue with a virtual clock and non-blocking pop.

    less:                 QueueSort `less(a, b)` over QueuedPodInfo.
    clock:                object with `now() -> float` (seconds).
    queueing_hint_map:    profile -> [(ClusterEvent, plugin_name, hint_fn | None)]; None hint =
                          always Queue. hint_fn(pod, old_obj, new_obj) returns QueueingHint.QUEUE
                          or SKIP, or a (hint, error) pair where an error means Queue.
    pre_enqueue_plugins:  profile -> [PreEnqueuePlugin] in the order they run.
    on_move:              on_move(pod_key, from_queue, to_queue, reason, event_label) after every
                          change of a pod's place (queues: activeQ, backoffQ, unschedulable,
                          gated, none). reason is upstream's event string (e.g.
                          "ScheduleAttemptFailure", "BackoffComplete", "NodeAdd"); event_label is
                          set when a cluster event caused the move.
    pod_lister:           (namespace, name) -> Pod | None, for the nominator's liveness check.
    namespace_labels:     namespace -> labels (AssignedPodAdded's affinity matching).
    """

    def __init__(
        self,
        less: Callable[[QueuedPodInfo, QueuedPodInfo], bool],
        clock: Any,
        *,
        queueing_hint_map: dict[str, list[HintEntry]] | None = None,
        pre_enqueue_plugins: dict[str, list[Any]] | None = None,
        pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
        pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
        pod_max_in_unschedulable_pods_duration: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        on_move: OnMove | None = None,
        pod_lister: Callable[[str, str], Pod | None] | None = None,
        namespace_labels: Callable[[str], dict[str, str] | None] | None = None,
        queueing_hints_enabled: bool = True,
        pop_from_backoff_q_enabled: bool = True,
        total_less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] | None = None,
    ) -> None:
        self.less = less
        # A queue-sort plugin may hand over its total order directly (PrioritySort does): the
        # same answers as _active_less, without two calls through the framework per comparison.
        active_less = total_less or self._active_less
        self.clock = clock
        self.on_move = on_move
        self.on_hints_skipped: OnHintsSkipped | None = None
        self.hint_recorder: Any = None  # anything with `enabled` (the run's event sink)
        self.last_hints: list[dict[str, Any]] | None = None
        self._move_hints: dict[str, Any] | None = None
        self.namespace_labels = namespace_labels
        self.hints_enabled = queueing_hints_enabled
        self.pop_enabled = pop_from_backoff_q_enabled
        self.pod_max_in_unschedulable_pods_duration = pod_max_in_unschedulable_pods_duration
        self.start_time: float = float(clock.now())

        # profile -> {event: [(plugin, fn)]}, keeping registration order.
        self.queueing_hint_map: dict[str, dict[ClusterEvent, list[tuple[str, HintFn | None]]]] = {}
        for profile, entries in (queueing_hint_map or {}).items():
            m: dict[ClusterEvent, list[tuple[str, HintFn | None]]] = {}
            for ev, plugin, fn in entries:
                m.setdefault(ev, []).append((plugin, fn))
            self.queueing_hint_map[profile] = m
        self._interest: dict[ClusterEvent, bool] = {}  # is_event_of_interest's answers
        self.plugin_to_events: dict[str, list[ClusterEvent]] = {}
        for m in self.queueing_hint_map.values():
            for ev, fns in m.items():
                for plugin, _ in fns:
                    self.plugin_to_events.setdefault(plugin, []).append(ev)
        self.pre_enqueue_plugins: dict[str, list[Any]] = {k: list(v) for k, v in (pre_enqueue_plugins or {}).items()}

        self._seq = 0
        self.move_request_cycle = -1
        self.backoff_q = BackoffQueue(
            clock, pod_initial_backoff_seconds, pod_max_backoff_seconds, active_less, pop_from_backoff_q_enabled,
        )
        self.active_q = ActiveQueue(
            active_less, queueing_hints_enabled, self.backoff_q if pop_from_backoff_q_enabled else None,
        )
        self.unschedulable_pods = UnschedulablePods()
        self.nominator = Nominator(pod_lister)
        self._last_backoff_flush: float | None = None
        self._last_leftover_flush: float | None = None

    # ------------------------------------------------------------------------------------------
    # pickling: callbacks are dropped and re-attached with attach_callbacks()
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["on_move"] = None
        state["on_hints_skipped"] = None
        state["hint_recorder"] = None
        state["namespace_labels"] = None
        return state

    def attach_callbacks(
        self,
        on_move: OnMove | None = None,
        pod_lister: Callable[[str, str], Pod | None] | None = None,
        namespace_labels: Callable[[str], dict[str, str] | None] | None = None,
        clock: Any = None,
        on_hints_skipped: OnHintsSkipped | None = None,
        hint_recorder: Any = None,
    ) -> None:
        """Re-attach what __getstate__ dropped (and optionally a new clock) after unpickling.
        `on_hints_skipped(event_label, count, sample)`: a cluster event whose queueing hints kept
        `count` pods in the unschedulable pool (`sample`: the first few, with the hints asked);
        `hint_recorder`: the event sink whose `enabled` says whether to collect hints at all."""
        self.on_move = on_move
        self.on_hints_skipped = on_hints_skipped
        self.hint_recorder = hint_recorder
        self.nominator.pod_lister = pod_lister
        self.namespace_labels = namespace_labels
        if clock is not None:
            self.clock = clock
            self.backoff_q.clock = clock

    # ------------------------------------------------------------------------------------------
    # helpers
    def _now(self) -> float:
        return float(self.clock.now())

    def _stamp(self, pinfo: QueuedPodInfo) -> None:
        pinfo.timestamp = self._now()
        self._seq += 1
        pinfo.timestamp_seq = self._seq

    def _active_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """QueueSort's less; pods it finds equal and whose timestamps are identical are ordered
        by when their timestamps were taken (upstream wall-clock timestamps never tie)."""
        if self.less(a, b):
            return True
        if self.less(b, a):
            return False
        return a.timestamp == b.timestamp and a.timestamp_seq < b.timestamp_seq

    def new_queued_pod_info(self, pod: Pod, *plugins: str) -> QueuedPodInfo:
        pinfo = QueuedPodInfo(PodInfo(pod), unschedulable_plugins=set(plugins) if plugins else NO_PLUGINS)
        self._stamp(pinfo)
        return pinfo

    def _location(self, pinfo: QueuedPodInfo) -> str:
        key = pinfo.pod.key
        u = self.unschedulable_pods.get_by_key(key)
        if u is not None:
            return GATED if u.gated else UNSCHEDULABLE_Q
        if self.backoff_q.has_key(key):
            return BACKOFF_Q
        if self.active_q.has_key(key):
            return ACTIVE_Q
        return NONE

    def _emit(self, pinfo: QueuedPodInfo, frm: str, reason: str, event_label: str | None) -> None:
        if self.on_move is None:
            return
        to = self._location(pinfo)
        if to != frm:
            hints = self._move_hints
            if hints is None:
                self.on_move(pinfo.pod.key, frm, to, reason, event_label)
            else:
                self.on_move(pinfo.pod.key, frm, to, reason, event_label, hints=hints)

    def _reporting(self) -> bool:
        """Whether anyone reads which hints were asked (the event stream is recorded)."""
        rec = self.hint_recorder
        return rec is not None and bool(rec.enabled)

    def _requeue_with_hints(
        self, pinfo: QueuedPodInfo, strategy: int, event: str, frm: str, label: str | None,
        asked: list[dict[str, Any]] | None,
    ) -> str:
        """_requeue_pod_with_queueing_strategy, reporting the hints that decided it with the move
        (upstream logs the strategy as the move's "hint"; the plugins' verdicts are what led to it)."""
        if not asked:
            return self._requeue_pod_with_queueing_strategy(pinfo, strategy, event, frm, label)
        self._move_hints = {"strategy": STRATEGY_NAMES[strategy], "asked": list(asked or [])}
        try:
            return self._requeue_pod_with_queueing_strategy(pinfo, strategy, event, frm, label)
        finally:
            self._move_hints = None

    # ------------------------------------------------------------------------------------------
    # PreEnqueue
    def _run_pre_enqueue_plugins(self, pinfo: QueuedPodInfo) -> None:
        pod = pinfo.pod
        plugins = self.pre_enqueue_plugins.get(pod.scheduler_name, [])
        gating = pinfo.gating_plugin
        if gating:
            for pl in plugins:
                if pl.name == gating:
                    if not self._run_pre_enqueue_plugin(pl, pinfo):
                        return
                    break
        for pl in plugins:
            if gating and pl.name == gating:
                continue
            if not self._run_pre_enqueue_plugin(pl, pinfo):
                return
        pinfo.gating_plugin = ""

    def _run_pre_enqueue_plugin(self, pl: Any, pinfo: QueuedPodInfo) -> bool:
        s = pl.pre_enqueue(pinfo.pod)
        if _default_pre_enqueue_ok(s):
            return True
        pinfo.unschedulable_plugins = {*pinfo.unschedulable_plugins, pl.name}  # replaced (QueuedPodInfo)
        pinfo.gating_plugin = pl.name
        pinfo.gating_plugin_events = list(self.plugin_to_events.get(pl.name, []))
        return False

    # ------------------------------------------------------------------------------------------
    # moves between queues
    def _move_to_active_q(
        self, pinfo: QueuedPodInfo, event: str, moves_from_backoff_q: bool,
        frm: str | None = None, label: str | None = None,
    ) -> bool:
        if frm is None:
            frm = self._location(pinfo)
        if not (self.pop_enabled and moves_from_backoff_q):
            self._run_pre_enqueue_plugins(pinfo)
            self.unschedulable_pods.refresh(pinfo)  # its gate may have changed while stored
        if pinfo.gated:
            if (self.active_q.has(pinfo) or self.backoff_q.has(pinfo)
                    or self.unschedulable_pods.get(pinfo.pod) is not None):
                self._emit(pinfo, frm, event, label)
                return False
            self.unschedulable_pods.add_or_update(pinfo, event)
            self._emit(pinfo, frm, event, label)
            return False
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self._now()
        self.unschedulable_pods.delete(pinfo.pod)
        self.backoff_q.delete(pinfo)
        self.active_q.add(pinfo, event)
        if event in (fe.event_label(fe.EVENT_UNSCHEDULED_POD_ADD), fe.event_label(fe.EVENT_UNSCHEDULED_POD_UPDATE)):
            self.nominator.add_nominated_pod(pinfo.pod_info, None)
        self._emit(pinfo, frm, event, label)
        return True

    def _move_to_backoff_q(self, pinfo: QueuedPodInfo, event: str, frm: str | None = None,
                           label: str | None = None) -> bool:
        if frm is None:
            frm = self._location(pinfo)
        if self.pop_enabled:
            # PreEnqueue runs when entering backoffQ, so popping from it needs no second run.
            self._run_pre_enqueue_plugins(pinfo)
            self.unschedulable_pods.refresh(pinfo)  # its gate may have changed while stored
            if pinfo.gated:
                if self.unschedulable_pods.get(pinfo.pod) is None:
                    self.unschedulable_pods.add_or_update(pinfo, event)
                self._emit(pinfo, frm, event, label)
                return False
        self.unschedulable_pods.delete(pinfo.pod)
        self.backoff_q.add(pinfo, event)
        self._emit(pinfo, frm, event, label)
        return True

    def _requeue_pod_with_queueing_strategy(
        self, pinfo: QueuedPodInfo, strategy: int, event: str, frm: str | None = None, label: str | None = None,
    ) -> str:
        if frm is None:
            frm = self._location(pinfo)
        if strategy == QueueingStrategy.SKIP:
            self.unschedulable_pods.add_or_update(pinfo, event)
            self._emit(pinfo, frm, event, label)
            return UNSCHEDULABLE_Q
        if strategy == QueueingStrategy.AFTER_BACKOFF and self.backoff_q.is_pod_backing_off(pinfo):
            if self._move_to_backoff_q(pinfo, event, frm, label):
                return BACKOFF_Q
            return UNSCHEDULABLE_Q
        if self._move_to_active_q(pinfo, event, False, frm, label):
            return ACTIVE_Q
        return UNSCHEDULABLE_Q

    # ------------------------------------------------------------------------------------------
    # queueing hints
    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """Whether some registered event covers `event`. The registrations are fixed when the
        queue is built, so each distinct event's answer is kept: the assigned-pod event after
        every binding no longer walks every profile's registrations."""
        try:
            return self._interest[event]
        except KeyError:
            pass
        answer = self._event_of_interest(event)
        self._interest[event] = answer
        return answer

    def _event_of_interest(self, event: ClusterEvent) -> bool:
        if fe.cluster_event_is_wildcard(event):
            return True
        for hint_map in self.queueing_hint_map.values():
            for ev in hint_map:
                if fe.match_cluster_events(ev, event):
                    return True
        return False

    def is_pod_worth_requeuing(self, pinfo: QueuedPodInfo, event: ClusterEvent, old_obj: Any, new_obj: Any) -> int:
        """Ask the hints of the plugins that rejected the pod: Queue from a Pending plugin means
        go to activeQ at once; from an Unschedulable plugin, after backoff; all Skip: stay."""
        self.last_hints = None
        rejectors = pinfo.unschedulable_plugins | pinfo.pending_plugins
        if not rejectors:
            return QueueingStrategy.AFTER_BACKOFF
        if fe.cluster_event_is_wildcard(event):
            # A wildcard event that carries a pod targets that pod only (ForceActivate).
            if new_obj is not None:
                if not isinstance(new_obj, Pod) or pod_uid(new_obj) != pod_uid(pinfo.pod):
                    return QueueingStrategy.SKIP
            return QueueingStrategy.AFTER_BACKOFF
        hint_map = self.queueing_hint_map.get(pinfo.pod.scheduler_name)
        if hint_map is None:
            return QueueingStrategy.AFTER_BACKOFF
        pod = pinfo.pod
        strategy = QueueingStrategy.SKIP
        # The hints asked, for the event stream (only when someone listens to queue moves).
        asked: list[dict[str, Any]] | None = [] if self._reporting() else None
        self.last_hints = asked
        for ev, fns in hint_map.items():
            if not fe.match_cluster_events(ev, event):
                continue
            for plugin, fn in fns:
                if plugin not in rejectors:
                    continue
                # Without SchedulerQueueingHints every registered event queues (defaultQueueingHintFn).
                hint = QueueingHint.QUEUE if fn is None or not self.hints_enabled else fn(pod, old_obj, new_obj)
                err = None
                if isinstance(hint, tuple):
                    hint, err = hint
                    if err:
                        hint = QueueingHint.QUEUE
                if asked is not None:
                    asked.append(_hint_record(event, plugin, hint, fn, err, self.hints_enabled))
                if hint == QueueingHint.SKIP:
                    continue
                if plugin in pinfo.pending_plugins:
                    return QueueingStrategy.IMMEDIATELY
                if not pinfo.pending_plugins:
                    return QueueingStrategy.AFTER_BACKOFF
                strategy = QueueingStrategy.AFTER_BACKOFF
        return strategy

    # ------------------------------------------------------------------------------------------
    # public API (upstream SchedulingQueue)
    def add(self, pod: Pod) -> None:
        """A new unscheduled pod: activeQ, or the unschedulable pool if PreEnqueue gates it."""
        pinfo = self.new_queued_pod_info(pod)
        self._move_to_active_q(pinfo, fe.event_label(fe.EVENT_UNSCHEDULED_POD_ADD), False, NONE)

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move the given pods from the unschedulable pool or backoffQ to activeQ; for a pod in
        flight, record a ForceActivate event so it is requeued when its attempt comes back."""
        for pod in pods:
            if self._activate(pod):
                continue
            self.active_q.add_events_if_pod_in_flight(None, pod, [fe.EVENT_FORCE_ACTIVATE])
            self.move_request_cycle = self.active_q.sched_cycle

    def _activate(self, pod: Pod) -> bool:
        moves_from_backoff = False
        pinfo = self.unschedulable_pods.get(pod)
        if pinfo is not None:
            frm = GATED if pinfo.gated else UNSCHEDULABLE_Q
        else:
            pinfo = self.backoff_q.get_by_key(pod.key)
            if pinfo is None:
                return False
            if not self.backoff_q.delete(pinfo):
                return False
            moves_from_backoff = True
            frm = BACKOFF_Q
        return self._move_to_active_q(pinfo, fe.FORCE_ACTIVATE, moves_from_backoff, frm, fe.FORCE_ACTIVATE)

    @property
    def scheduling_cycle(self) -> int:
        return self.active_q.sched_cycle

    def pop(self) -> QueuedPodInfo | None:
        """The next pod to try, or None when activeQ (and, with PopFromBackoffQ, podBackoffQ) is
        empty. Counts the attempt, bumps the scheduling cycle and marks the pod in flight."""
        pinfo, src = self.active_q.pop()
        if pinfo is not None and self.on_move is not None:
            reason = "Pop" if src == ACTIVE_Q else fe.POP_FROM_BACKOFF_Q
            self.on_move(pinfo.pod.key, src, NONE, reason, None)
        return pinfo

    def done(self, uid: str) -> None:
        """The attempt for this pod (by UID; namespace/name for pods without one) is over."""
        if not self.hints_enabled:
            return
        self.active_q.done(uid)

    def add_unschedulable_if_not_present(self, pinfo: QueuedPodInfo, pod_scheduling_cycle: int) -> str | None:
        """Put a pod whose attempt failed back: backoffQ/activeQ if an event received while it
        was in flight may have helped (queueing hints), else the unschedulable pool. Before
        calling, set pinfo.unschedulable_plugins / pending_plugins from the failure (both empty
        means the attempt failed with an error). Returns an error message, or None."""
        try:
            pod = pinfo.pod
            if self.unschedulable_pods.get(pod) is not None:
                return f"Pod {pod.key} is already present in unschedulable queue"
            if self.active_q.has(pinfo):
                return f"Pod {pod.key} is already present in the active queue"
            if self.backoff_q.has(pinfo):
                return f"Pod {pod.key} is already present in the backoff queue"
            if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
                pinfo.consecutive_errors_count += 1
            else:
                pinfo.unschedulable_count += 1
                pinfo.consecutive_errors_count = 0
            self._stamp(pinfo)
            pinfo.backoff_expiration = None
            if not self.hints_enabled:
                self._add_unschedulable_without_queueing_hint(pinfo, pod_scheduling_cycle)
                return None
            asked: list[dict[str, Any]] = []
            hint = self._determine_scheduling_hint_for_in_flight_pod(pinfo, asked)
            self._requeue_with_hints(pinfo, hint, fe.SCHEDULE_ATTEMPT_FAILURE, NONE, None, asked)
            return None
        finally:
            self.done(pod_uid(pinfo.pod))

    def _determine_scheduling_hint_for_in_flight_pod(self, pinfo: QueuedPodInfo,
                                                      asked: list[dict[str, Any]] | None = None) -> int:
        """`asked` collects the hints consulted for the events received while the pod was in
        flight, up to the one that decided."""
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        events = self.active_q.cluster_events_for_pod(pinfo)
        if events is None:
            return QueueingStrategy.AFTER_BACKOFF
        strategy = QueueingStrategy.SKIP
        for e in events:
            s = self.is_pod_worth_requeuing(pinfo, e.event, e.old_obj, e.new_obj)
            if asked is not None and self.last_hints:
                asked.extend(self.last_hints)
            if s == QueueingStrategy.SKIP:
                continue
            if s == QueueingStrategy.IMMEDIATELY:
                return s
            strategy = QueueingStrategy.AFTER_BACKOFF
            if not pinfo.pending_plugins:
                return strategy
        return strategy

    def _add_unschedulable_without_queueing_hint(self, pinfo: QueuedPodInfo, pod_scheduling_cycle: int) -> None:
        """The pre-queueing-hint behaviour (gate off): back off if a move request arrived during
        or after this pod's cycle (moveRequestCycle) or no plugin rejected it; else unschedulable."""
        rejectors = pinfo.unschedulable_plugins | pinfo.pending_plugins
        if self.move_request_cycle >= pod_scheduling_cycle or not rejectors:
            self._move_to_backoff_q(pinfo, fe.SCHEDULE_ATTEMPT_FAILURE, NONE)
        else:
            self.unschedulable_pods.add_or_update(pinfo, fe.SCHEDULE_ATTEMPT_FAILURE)
            self._emit(pinfo, NONE, fe.SCHEDULE_ATTEMPT_FAILURE, None)

    def flush_backoff_q_completed(self) -> None:
        """Move every pod whose backoff completed to activeQ (upstream: every second)."""
        self._last_backoff_flush = self._now()
        for pinfo in self.backoff_q.pop_all_backoff_completed():
            self._move_to_active_q(pinfo, fe.BACKOFF_COMPLETE, True, BACKOFF_Q)

    def flush_unschedulable_pods_leftover(self) -> None:
        """Move pods that have waited in the pool longer than podMaxInUnschedulablePodsDuration
        (upstream: every 30 s)."""
        now = self._now()
        self._last_leftover_flush = now
        to_move = [
            p for p in self.unschedulable_pods.values()
            if now - p.timestamp > self.pod_max_in_unschedulable_pods_duration
        ]
        if to_move:
            self._move_pods_to_active_or_backoff_queue(to_move, fe.EVENT_UNSCHEDULABLE_TIMEOUT, None, None)

    def update(self, old_pod: Pod | None, new_pod: Pod) -> None:
        """An unscheduled pod changed (e.g. scheduling gates removed, labels, tolerations)."""
        events: list[ClusterEvent] = []
        if self.hints_enabled:
            events = fe.pod_scheduling_properties_change(new_pod, old_pod) if old_pod is not None else [
                fe.EVENT_UNSCHEDULED_POD_UPDATE]
            # An in-flight pod is requeued from the latest object; remember what happened.
            if self.active_q.add_events_if_pod_in_flight(old_pod, new_pod, events):
                return
        if old_pod is not None:
            pinfo = self.active_q.update(new_pod, old_pod.key)
            if pinfo is None:
                pinfo = self.backoff_q.update(new_pod, old_pod.key)
            if pinfo is not None:
                self.nominator.update_nominated_pod(old_pod, pinfo.pod_info)
                return
        pinfo = self.unschedulable_pods.get(new_pod)
        if pinfo is not None:
            pinfo.pod_info.update(new_pod)
            self.nominator.update_nominated_pod(old_pod if old_pod is not None else new_pod, pinfo.pod_info)
            if self.hints_enabled:
                for evt in events:
                    frm = self._location(pinfo)
                    hint = self.is_pod_worth_requeuing(pinfo, evt, old_pod, new_pod)
                    lbl = fe.event_label(evt)
                    q = self._requeue_with_hints(pinfo, hint, lbl, frm, lbl, self.last_hints)
                    if q == ACTIVE_Q or (self.pop_enabled and q == BACKOFF_Q):
                        break
                return
            lbl = fe.event_label(fe.EVENT_UNSCHEDULED_POD_UPDATE)
            frm = self._location(pinfo)
            if old_pod is None or is_pod_updated(old_pod, new_pod):
                if self.backoff_q.is_pod_backing_off(pinfo):
                    self._move_to_backoff_q(pinfo, lbl, frm, lbl)
                    return
                self._move_to_active_q(pinfo, lbl, False, frm, lbl)
                return
            self.unschedulable_pods.add_or_update(pinfo, lbl)
            return
        pinfo = self.new_queued_pod_info(new_pod)
        self._move_to_active_q(pinfo, fe.event_label(fe.EVENT_UNSCHEDULED_POD_UPDATE), False, NONE)

    def delete(self, pod: Pod) -> None:
        """The pod is gone (deleted, or bound by someone else): drop it from every structure."""
        self.nominator.delete_nominated_pod_if_exists(pod)
        key = pod.key
        for frm, remove in (
            (ACTIVE_Q, self.active_q.queue.delete_by_key),
            (BACKOFF_Q, self.backoff_q.delete_by_key),
        ):
            if remove(key):
                if self.on_move is not None:
                    self.on_move(key, frm, NONE, "Delete", None)
                return
        pinfo = self.unschedulable_pods.get(pod)
        if pinfo is not None:
            self.unschedulable_pods.delete(pod, pinfo.gated)
            if self.on_move is not None:
                self.on_move(key, GATED if pinfo.gated else UNSCHEDULABLE_Q, NONE, "Delete", None)

    def assigned_pod_added(self, pod: Pod) -> None:
        """Legacy (no-hint) path: only pods whose affinity terms match `pod`, or rejected by
        PodTopologySpread in the same namespace, are considered. With queueing hints on, upstream's
        event handler calls move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, pod)."""
        self._move_pods_to_active_or_backoff_queue(
            self._unschedulable_pods_with_cross_topology_term(pod), fe.EVENT_ASSIGNED_POD_ADD, None, pod,
        )

    def assigned_pod_updated(self, old_pod: Pod, new_pod: Pod, event: ClusterEvent) -> None:
        """Legacy (no-hint) path for an assigned pod's update; see assigned_pod_added."""
        if fe.match_cluster_events(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN), event):
            self.move_all_to_active_or_backoff_queue(event, old_pod, new_pod, None)
        else:
            self._move_pods_to_active_or_backoff_queue(
                self._unschedulable_pods_with_cross_topology_term(new_pod), event, old_pod, new_pod,
            )

    def move_all_to_active_or_backoff_queue(
        self, event: ClusterEvent, old_obj: Any = None, new_obj: Any = None,
        precheck: Callable[[Pod], bool] | None = None,
    ) -> None:
        """A cluster event: requeue the unschedulable pods it may help (per queueing hints) and
        record it for pods in flight."""
        if not self.is_event_of_interest(event):
            return
        if not len(self.unschedulable_pods):
            # Nothing to move (every bound pod of a big start comes here): the bookkeeping only.
            self.move_request_cycle = self.active_q.sched_cycle
            if self.hints_enabled:
                self.active_q.add_event_if_any_in_flight(old_obj, new_obj, event)
            return
        pods = [p for p in self.unschedulable_pods.values() if precheck is None or precheck(p.pod)]
        self._move_pods_to_active_or_backoff_queue(pods, event, old_obj, new_obj)

    def _move_pods_to_active_or_backoff_queue(
        self, pods: list[QueuedPodInfo], event: ClusterEvent, old_obj: Any, new_obj: Any,
    ) -> None:
        if not self.is_event_of_interest(event):
            return
        lbl = fe.event_label(event)
        skipped: list[dict[str, Any]] = []
        num_skipped = 0
        for pinfo in pods:
            if pinfo.gated and not fe.match_any_cluster_event(event, pinfo.gating_plugin_events):
                continue
            hint = self.is_pod_worth_requeuing(pinfo, event, old_obj, new_obj)
            if hint == QueueingStrategy.SKIP:
                if self.last_hints:
                    num_skipped += 1
                    if len(skipped) < HINT_SKIP_SAMPLE:
                        skipped.append({"pod": pinfo.pod.key, "hints": self.last_hints})
                continue
            frm = self._location(pinfo)
            self.unschedulable_pods.delete(pinfo.pod, pinfo.gated)
            self._requeue_with_hints(pinfo, hint, lbl, frm, lbl, self.last_hints)
        if num_skipped and self.on_hints_skipped is not None:
            self.on_hints_skipped(lbl, num_skipped, skipped)
        self.move_request_cycle = self.active_q.sched_cycle
        if self.hints_enabled:
            self.active_q.add_event_if_any_in_flight(old_obj, new_obj, event)

    def _unschedulable_pods_with_cross_topology_term(self, pod: Pod) -> list[QueuedPodInfo]:
        ns_labels = self.namespace_labels(pod.namespace) if self.namespace_labels is not None else None
        out = []
        for pinfo in self.unschedulable_pods.values():
            if PODTOPOLOGYSPREAD_NAME in pinfo.unschedulable_plugins and pod.namespace == pinfo.pod.namespace:
                out.append(pinfo)
                continue
            for term in pinfo.pod_info.required_affinity_terms:
                if term.matches(pod, ns_labels):
                    out.append(pinfo)
                    break
        return out

    # ------------------------------------------------------------------------------------------
    # nominator (upstream PodNominator through the queue)
    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        self.nominator.add_nominated_pod(pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        self.nominator.delete_nominated_pod_if_exists(pod)

    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        self.nominator.update_nominated_pod(old_pod, new_pod_info)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """Pods nominated to the node, in nomination order. Each comes from activeQ, the
        unschedulable pool or backoffQ; a pod in none of them (in flight) is represented by a
        metadata-only pod, exactly as upstream does."""
        out = []
        for ref in self.nominator.nominated_refs_for_node(node_name):
            key = ref.key
            q = self.active_q.get_by_key(key)
            if q is None:
                q = self.unschedulable_pods.get_by_key(key)
            if q is None:
                q = self.backoff_q.get_by_key(key)
            out.append(q.pod_info if q is not None else PodInfo(ref.to_pod()))
        return out

    # ------------------------------------------------------------------------------------------
    # timers for the simulation loop
    def _backoff_tick_base(self) -> float:
        # Upstream aligns the first flush to the next whole second after start (with the gate).
        if self.pop_enabled:
            return float(math.floor(self.start_time + BACKOFF_FLUSH_PERIOD + _EPS))
        return self.start_time + BACKOFF_FLUSH_PERIOD

    def _next_tick(self, base: float, period: float, now: float, last: float | None) -> float:
        k = max(0, math.ceil((now - base) / period - _EPS))
        t = base + k * period
        if last is not None and abs(t - last) < _EPS:
            t += period
        return t

    def next_backoff_wakeup(self, now: float) -> float | None:
        """When flush_backoff_q_completed would next move a pod; None if backoffQ is empty."""
        earliest = self.backoff_q.earliest_backoff_time()
        if earliest is None:
            return None
        base = self._backoff_tick_base()
        t0 = self._next_tick(base, BACKOFF_FLUSH_PERIOD, now, self._last_backoff_flush)
        if earliest == ZERO_TIME:
            return t0
        # Released at the first tick T with earliest < align(T) (ticks are window-aligned).
        k = max(0, math.floor((earliest - base) / BACKOFF_FLUSH_PERIOD + _EPS) + 1)
        return max(t0, base + k * BACKOFF_FLUSH_PERIOD)

    def next_leftover_wakeup(self, now: float) -> float | None:
        """When flush_unschedulable_pods_leftover would next move a pod (first 30-s tick more than
        podMaxInUnschedulablePodsDuration after the oldest movable pod's timestamp); None if no
        pod would ever be moved by it (gated pods whose gate ignores the timeout)."""
        # Kept up to date by the pool (a heap, lazily invalidated), not a scan of every
        # waiting pod: this is asked on every step of a run.
        oldest = self.unschedulable_pods.oldest_movable_timestamp()
        if oldest is None:
            return None
        base = self.start_time
        period = UNSCHEDULABLE_LEFTOVER_FLUSH_PERIOD
        x = (oldest + self.pod_max_in_unschedulable_pods_duration - base) / period
        k = max(0, math.floor(x + _EPS) + 1)
        t = base + k * period
        t0 = self._next_tick(base, period, now, self._last_leftover_flush)
        return max(t, t0)

    def next_wakeup(self, now: float) -> float | None:
        """The earliest of next_backoff_wakeup and next_leftover_wakeup (None if neither)."""
        ts = [t for t in (self.next_backoff_wakeup(now), self.next_leftover_wakeup(now)) if t is not None]
        return min(ts) if ts else None

    def run_due_timers(self, now: float) -> None:
        """Run the flushes whose wakeup is `now` (backoff first). The clock must read `now`."""
        t = self.next_backoff_wakeup(now)
        if t is not None and t <= now + _EPS:
            self.flush_backoff_q_completed()
        t = self.next_leftover_wakeup(now)
        if t is not None and t <= now + _EPS:
            self.flush_unschedulable_pods_leftover()

    # ------------------------------------------------------------------------------------------
    # inspection
    def get_pod(self, name: str, namespace: str) -> QueuedPodInfo | None:
        key = f"{namespace}/{name}"
        return (self.backoff_q.get_by_key(key) or self.unschedulable_pods.get_by_key(key)
                or self.active_q.get_by_key(key))

    def pods_in_active_q(self) -> list[Pod]:
        return [p.pod for p in self.active_q.queue.list()]

    def pods_in_backoff_q(self) -> list[Pod]:
        return [p.pod for p in self.backoff_q.list()]

    def unschedulable_pod_list(self) -> list[Pod]:
        return [p.pod for p in self.unschedulable_pods.values()]

    def in_flight_pods(self) -> list[Pod]:
        return self.active_q.list_in_flight_pods()  # type: ignore[return-value]

    def active_len(self) -> int:
        return len(self.active_q)

    def backoff_len(self) -> int:
        return len(self.backoff_q)

    def _describe(self, p: QueuedPodInfo, **extra: Any) -> dict:
        bo = self.backoff_q.get_backoff_time(p)
        d = {
            "pod": p.pod.key,
            "uid": p.pod.uid,
            "priority": p.pod.priority,
            "attempts": p.attempts,
            "timestamp": p.timestamp,
            "unschedulableCount": p.unschedulable_count,
            "consecutiveErrorsCount": p.consecutive_errors_count,
            "backoffExpiry": None if bo == ZERO_TIME else bo,
            "unschedulablePlugins": sorted(p.unschedulable_plugins),
            "pendingPlugins": sorted(p.pending_plugins),
            "gatingPlugin": p.gating_plugin or None,
        }
        d.update(extra)
        return d

    def pending_pods(self, limit: int | None = None) -> dict:
        """For the UI: each queue's pods in the order they would leave it (activeQ: pop order;
        backoffQ: regular heap's pop order then the error heap's; unschedulable: arrival order;
        gated pods are listed under "unschedulable" with gatingPlugin set), plus in-flight pods,
        each queue's full length (`counts`) and upstream's summary string. `limit`: list only the
        first `limit` pods of each queue (a UI showing queue heads of a 10,000-pod cluster)."""
        active = [self._describe(p) for p in self.active_q.queue.pop_order(limit)]
        regular, errors = self.backoff_q.pod_backoff_q, self.backoff_q.pod_error_backoff_q
        backoff = [self._describe(p, errorBackoff=False) for p in regular.pop_order(limit)]
        rest = None if limit is None else max(0, limit - len(backoff))
        backoff += [self._describe(p, errorBackoff=True) for p in errors.pop_order(rest)]
        unsched = [self._describe(p) for p in itertools.islice(self.unschedulable_pods.values(), limit)]
        counts = {
            "activeQ": len(self.active_q.queue),
            "backoffQ": len(regular) + len(errors),
            "unschedulable": len(self.unschedulable_pods),
        }
        return {
            "activeQ": active,
            "backoffQ": backoff,
            "unschedulable": unsched,
            "inFlight": [p.key for p in self.in_flight_pods()],  # type: ignore[attr-defined]
            "counts": counts,
            "summary": (
                f"activeQ:{counts['activeQ']}; backoffQ:{counts['backoffQ']}; "
                f"unschedulablePods:{counts['unschedulable']}"
            ),
        }


def is_pod_updated(old_pod: Pod, new_pod: Pod) -> bool:
    """Did anything but status change? (Only used with queueing hints disabled.)"""
    import dataclasses

    status_fields = {"phase", "nominated_node_name", "conditions", "claims"}  # claims: their status
    for f in dataclasses.fields(old_pod):
        if f.name in status_fields:
            continue
        if getattr(old_pod, f.name) != getattr(new_pod, f.name, None):
            return True
    return False
