"""The NoExecute taint eviction controller (kube-controller-manager's taint-eviction-controller), on a
virtual clock.

Why it exists: the scheduler only keeps pods *off* nodes whose taints they do not tolerate; pods
already running on a node that gains a NoExecute taint are removed by this controller. It decides,
for every pod bound to a node with NoExecute taints, whether the pod is deleted now, after a delay,
or never, and keeps a table of pending deletions that the simulation loop fires when the virtual
clock reaches them.

Decision rules (upstream pkg/controller/tainteviction, v1.35):

- Only NoExecute taints count; NoSchedule / PreferNoSchedule are ignored here.
- If any NoExecute taint of the node is not tolerated, the pod is deleted at once (fire time = now).
- Otherwise, for every taint the *first* toleration of the pod that tolerates it is "used"
  (GetMatchingTolerations); the delay is the minimum tolerationSeconds over the used tolerations.
  A used toleration without tolerationSeconds tolerates forever; if none has seconds the pod is
  never evicted (and any pending eviction is cancelled); seconds <= 0 means delete at once.
- The delay counts from the moment the controller processes the update (upstream uses
  ``time.Now()``), not from the taint's TimeAdded.
- A pending timed eviction is never moved by later re-processing: upstream only replaces it when the
  existing work was created at the very same instant as the new evaluation, which never happens on a
  real clock. So lengthening or shortening a toleration, or adding another finite taint, keeps the
  original fire time. It is cancelled (event "Cancelling deletion of Pod ns/name") when the taints
  go away, become tolerated forever, or become untolerated (then replaced by an immediate deletion),
  or when the pod is deleted.
- Deleting a node only forgets its taints; pending evictions of its pods are left to fire, as upstream
  does (the pods are orphaned there anyway).
- An immediate deletion is started by upstream the moment it is decided (a goroutine, no timer) and
  cannot be cancelled by later taint or toleration changes; here it is a pending entry due "now"
  which only ``pod_deleted`` removes (the pod is gone; nothing left to delete).

Events (``on_event(kind, **fields)``; kinds follow scheduler_core.events.recorder.EVENT_TYPES so the callback
can be ``sink.emit``):

- ``eviction_scheduled``: pod, node, at (fire time), taints ([``key=value:NoExecute``...]).
- ``eviction_cancelled``: pod, node.
- ``k8s_event``: eventType "Normal", reason "TaintManagerEviction", object "ns/name",
  message "Marking for deletion Pod ns/name" (emitted by ``fire_due``, before the loop deletes the pod)
  or "Cancelling deletion of Pod ns/name" (a pending timed eviction was cancelled).

Ordering: ``fire_due`` returns due evictions by fire time, then by the order in which the work was
queued. Upstream runs each eviction on its own timer / goroutine; equal fire times arise either from
immediate deletions (started in the order they were decided) or from timers armed in sequence with the
same duration (the earlier-armed one is due first on a real clock), so queueing order is the faithful
tie-break. Within one node update, pods are processed in the order the caller lists them (upstream's
informer index has no defined order; pass them in a stable order, e.g. creation order).

No threads, no wall clock: every entry point takes ``now`` (virtual seconds). The controller pickles
without its callback; re-attach it with ``set_event_callback`` after loading a checkpoint.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scheduler_core.api.default_toleration_seconds import with_default_tolerations
from scheduler_core.api.types import Node, Pod, Taint, Toleration
from scheduler_core.controllers.timers import Controller

TAINT_EFFECT_NO_EXECUTE = "NoExecute"
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_NOT_READY_TOLERATION_SECONDS = 300
DEFAULT_UNREACHABLE_TOLERATION_SECONDS = 300

EVENT_REASON = "TaintManagerEviction"
EVENT_TYPE_NORMAL = "Normal"
DELETED_BY = "TaintManagerEviction"
# The DisruptionTarget pod condition upstream patches onto the pod before deleting it.
DISRUPTION_CONDITION_TYPE = "DisruptionTarget"
DISRUPTION_CONDITION_REASON = "DeletionByTaintManager"
DISRUPTION_CONDITION_MESSAGE = "Taint manager: deleting due to NoExecute taint"

EventCallback = Callable[..., Any]


def marking_for_deletion_message(pod_key: str) -> str:
    """Message of the Normal TaintManagerEviction event recorded when the controller deletes a pod."""
    return f"Marking for deletion Pod {pod_key}"


def cancelling_deletion_message(pod_key: str) -> str:
    """Message of the Normal TaintManagerEviction event recorded when a pending deletion is cancelled."""
    return f"Cancelling deletion of Pod {pod_key}"


def get_no_execute_taints(taints: Iterable[Taint]) -> list[Taint]:
    """The node's NoExecute taints, in node order (the only ones this controller acts on)."""
    return [t for t in taints if t.effect == TAINT_EFFECT_NO_EXECUTE]


def get_matching_tolerations(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], comparison_operators: bool = False,
) -> tuple[bool, list[Toleration]]:
    """Whether every taint is tolerated, and for each taint the first toleration that tolerates it.

    Mirrors v1helper.GetMatchingTolerations: the used list is empty when not all are tolerated.
    Gt/Lt tolerations count only with TaintTolerationComparisonOperators (`comparison_operators`),
    as in the scheduler's TaintToleration.
    """
    if not taints:
        return True, []
    if not tolerations:
        return False, []
    used: list[Toleration] = []
    for taint in taints:
        for tol in tolerations:
            if tol.tolerates_taint_with(taint, comparison_operators):
                used.append(tol)
                break
        else:
            return False, []
    return True, used


def get_min_toleration_time(tolerations: Sequence[Toleration]) -> float | None:
    """Seconds the pod may stay: min tolerationSeconds of the used tolerations; None means forever.

    As upstream's getMinTolerationTime: an empty list gives 0, a toleration without seconds does
    not bound the stay, and any value <= 0 makes the whole answer 0.
    """
    if not tolerations:
        return 0.0
    best: int | None = None
    for tol in tolerations:
        secs = tol.toleration_seconds
        if secs is None:
            continue
        if secs <= 0:
            return 0.0
        if best is None or secs < best:
            best = secs
    return None if best is None else float(best)


def add_default_toleration_seconds(
    tolerations: Sequence[Toleration],
    not_ready_seconds: int = DEFAULT_NOT_READY_TOLERATION_SECONDS,
    unreachable_seconds: int = DEFAULT_UNREACHABLE_TOLERATION_SECONDS,
) -> list[Toleration]:
    """The DefaultTolerationSeconds admission plugin: tolerations after pod admission.

    Adds `node.kubernetes.io/not-ready` / `unreachable` Exists:NoExecute tolerations with the given
    seconds unless the pod already has a toleration covering that key (or every key) for NoExecute
    (or every effect). This is admission, i.e. it belongs where pods are created (it also changes
    what the scheduler's TaintToleration filter sees); the controller's ``default_toleration_seconds``
    flag applies it on the fly for callers that did not.
    """
    return with_default_tolerations(tolerations, not_ready_seconds, unreachable_seconds, added_by="")


@dataclass(slots=True)
class PendingEviction:
    """One queued deletion (upstream's TimedWorker).

    `immediate` marks work that upstream started at once (no timer): it cannot be cancelled.
    """

    pod: str  # namespace/name
    node: str
    created_at: float
    fire_at: float
    taints: tuple[Taint, ...]
    seq: int
    immediate: bool


@dataclass(slots=True, frozen=True)
class Eviction:
    """A pod the loop must delete now (status Deleted, deletedBy TaintManagerEviction)."""

    pod: str  # namespace/name
    namespace: str
    name: str
    node: str
    fire_at: float
    created_at: float
    taints: tuple[Taint, ...]
    deleted_by: str = DELETED_BY
    event_reason: str = EVENT_REASON
    event_type: str = EVENT_TYPE_NORMAL

    @property
    def message(self) -> str:
        """The TaintManagerEviction event text recorded for this deletion."""
        return marking_for_deletion_message(self.pod)


def _taint_strings(taints: Iterable[Taint]) -> list[str]:
    return [t.to_string() for t in taints]


class TaintEvictionController(Controller):
    """Deterministic NoExecute taint manager: a table of pending deletions on the virtual clock.

    Call ``node_updated`` / ``pod_updated`` / ``pod_deleted`` as the cluster changes, and
    ``fire_due(now)`` whenever the clock reaches ``next_fire_time()``; delete the pods it returns.
    """

    __slots__ = ("_work", "_heap", "_seq", "_tainted_nodes", "_on_event", "default_toleration_seconds",
                 "not_ready_seconds", "unreachable_seconds", "comparison_operators")

    def __init__(
        self,
        on_event: EventCallback | None = None,
        *,
        default_toleration_seconds: bool = False,
        not_ready_seconds: int = DEFAULT_NOT_READY_TOLERATION_SECONDS,
        unreachable_seconds: int = DEFAULT_UNREACHABLE_TOLERATION_SECONDS,
        comparison_operators: bool = False,
    ) -> None:
        self._work: dict[str, PendingEviction] = {}
        self._heap: list[tuple[float, int, str]] = []  # (fire_at, seq, pod key); stale entries skipped
        self._seq = 0
        self._tainted_nodes: dict[str, tuple[Taint, ...]] = {}
        self._on_event: EventCallback | None = on_event
        self.default_toleration_seconds = default_toleration_seconds
        self.not_ready_seconds = not_ready_seconds
        self.unreachable_seconds = unreachable_seconds
        # TaintTolerationComparisonOperators: Gt/Lt tolerations match numeric NoExecute taints.
        self.comparison_operators = comparison_operators

    name = "taint-eviction-controller"

    @classmethod
    def for_run(cls, api: Any) -> TaintEvictionController:
        """The run's controller: its events go to the API server's recorder (re-attached after a
        checkpoint's restore by the API server)."""
        gates = api.feature_gates
        return cls(on_event=api.controller_event,
                   comparison_operators=bool(gates.overrides) and gates.enabled("TaintTolerationComparisonOperators"))

    # -- as one of the run's controllers (controllers/timers.py) ---------------------------------
    def next_wakeup(self, sim: Any) -> float | None:
        return self.next_fire_time()

    def run_due(self, sim: Any, now: float) -> bool:
        """Delete the pods whose eviction is due (gracefully under the graceful option). The
        deletions are the news; the run does not report settling anew for them."""
        api = sim.apiserver
        for ev in self.fire_due(now):
            if ev.pod in api.cluster.pods:
                if api.graceful_termination:
                    api.terminate(ev.pod, DELETED_BY, DISRUPTION_CONDITION_REASON)
                else:
                    api.delete_pod(ev.pod, by=DELETED_BY)
        return False

    def on_node_add(self, api: Any, node: Node) -> None:
        self.node_updated(None, node, _pods_on(api, node.name), api.clock.now())

    def on_node_update(self, api: Any, old: Node, new: Node) -> None:
        self.node_updated(old, new, _pods_on(api, new.name), api.clock.now())

    def on_node_delete(self, api: Any, node: Node) -> None:
        self.node_updated(node, None, [], api.clock.now())

    def on_pod_add(self, api: Any, pod: Pod) -> None:
        if pod.node_name:
            node = api.cluster.nodes.get(pod.node_name)
            if node is not None and not node.taints:
                return  # no taint at all, so no NoExecute one: nothing to evaluate (most pods of a start)
            self.pod_updated(pod, node, api.clock.now())

    def on_pod_update(self, api: Any, old: Pod, new: Pod) -> None:
        if new.node_name and not old.node_name:  # bound: upstream's handler sees the assignment
            self.pod_updated(new, api.cluster.nodes.get(new.node_name), api.clock.now())

    def on_pod_delete(self, api: Any, pod: Pod) -> None:
        self.pod_deleted(pod.key)

    # -- checkpointing -------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__}
        state["_on_event"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, state.get(name))

    def set_event_callback(self, on_event: EventCallback | None) -> None:
        """(Re-)attach the event callback, e.g. after unpickling a checkpoint."""
        self._on_event = on_event

    # -- inspection ----------------------------------------------------------------------------
    def pending(self) -> list[PendingEviction]:
        """Pending deletions in firing order (for the UI and tests)."""
        return sorted(self._work.values(), key=lambda w: (w.fire_at, w.seq))

    def pending_for(self, pod_key: str) -> PendingEviction | None:
        """The pending deletion of one pod, if any."""
        return self._work.get(pod_key)

    def tainted_nodes(self) -> dict[str, tuple[Taint, ...]]:
        """Node name -> its NoExecute taints, as last reported through ``node_updated``."""
        return dict(self._tainted_nodes)

    def next_fire_time(self) -> float | None:
        """Earliest fire time of a pending deletion, or None when nothing is pending."""
        heap = self._heap
        while heap:
            fire_at, seq, key = heap[0]
            w = self._work.get(key)
            if w is not None and w.seq == seq:
                return fire_at
            heapq.heappop(heap)
        return None

    # -- inputs --------------------------------------------------------------------------------
    def node_updated(self, old_node: Node | None, new_node: Node | None, pods_on_node: Sequence[Pod],
                     now: float) -> None:
        """A node was added (old None), updated, or deleted (new None); re-evaluate its pods.

        Nothing happens when both versions carry the same NoExecute taints (TimeAdded included).
        """
        old_taints = get_no_execute_taints(old_node.taints) if old_node is not None else []
        new_taints = get_no_execute_taints(new_node.taints) if new_node is not None else []
        if old_node is not None and new_node is not None and old_taints == new_taints:
            return
        if new_node is None:
            # Upstream only forgets the node's taints; pending evictions of its pods keep running.
            if old_node is not None:
                self._tainted_nodes.pop(old_node.name, None)
            return
        name = new_node.name
        if new_taints:
            self._tainted_nodes[name] = tuple(new_taints)
        else:
            self._tainted_nodes.pop(name, None)
        if not pods_on_node:
            return
        if not new_taints:
            for pod in pods_on_node:
                self._cancel_with_event(pod.key)
            return
        for pod in pods_on_node:
            self._process_pod_on_node(pod, name, new_taints, now)

    def pod_updated(self, pod: Pod, node: Node | None, now: float) -> None:
        """A pod was bound to a node, or its tolerations changed: (re)evaluate it.

        `node` is the pod's node as it is now; None means "use the taints last seen through
        ``node_updated``" (upstream reads its own record of tainted nodes). Unbound pods and pods on
        nodes without NoExecute taints are left alone, as upstream does.
        """
        node_name = pod.node_name
        if not node_name:
            return
        if node is not None:
            taints: Sequence[Taint] = get_no_execute_taints(node.taints)
        else:
            taints = self._tainted_nodes.get(node_name, ())
        if not taints:
            return
        self._process_pod_on_node(pod, node_name, taints, now)

    def pod_deleted(self, pod_key: str) -> None:
        """The pod is gone: drop its pending deletion (a timed one is cancelled with an event)."""
        w = self._work.get(pod_key)
        if w is None:
            return
        if w.immediate:
            del self._work[pod_key]  # nothing left to delete; upstream's deletion would just fail
            return
        self._cancel_with_event(pod_key)

    def fire_due(self, now: float) -> list[Eviction]:
        """Pods whose deletion is due at `now`, in firing order; records their k8s events."""
        out: list[Eviction] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            fire_at, seq, key = heapq.heappop(heap)
            w = self._work.get(key)
            if w is None or w.seq != seq:
                continue
            del self._work[key]
            ns, _, name = key.partition("/")
            ev = Eviction(pod=key, namespace=ns, name=name, node=w.node, fire_at=w.fire_at,
                          created_at=w.created_at, taints=w.taints)
            self._emit("k8s_event", eventType=EVENT_TYPE_NORMAL, reason=EVENT_REASON, object=key,
                       message=marking_for_deletion_message(key))
            out.append(ev)
        return out

    # -- internals -----------------------------------------------------------------------------
    def _emit(self, kind: str, **fields: Any) -> None:
        cb = self._on_event
        if cb is not None:
            cb(kind, **fields)

    def _cancel_with_event(self, key: str) -> None:
        """Upstream cancelWorkWithEvent: timed work is cancelled with an event; started work runs on."""
        w = self._work.get(key)
        if w is None or w.immediate:
            return
        del self._work[key]
        self._emit("eviction_cancelled", pod=key, node=w.node)
        self._emit("k8s_event", eventType=EVENT_TYPE_NORMAL, reason=EVENT_REASON, object=key,
                   message=cancelling_deletion_message(key))

    def _add_work(self, key: str, node: str, created_at: float, fire_at: float, taints: Sequence[Taint]) -> None:
        """Upstream AddWork: ignored when the pod already has work queued."""
        if key in self._work:
            return
        self._seq += 1
        w = PendingEviction(pod=key, node=node, created_at=created_at, fire_at=fire_at, taints=tuple(taints),
                            seq=self._seq, immediate=fire_at <= created_at)
        self._work[key] = w
        heapq.heappush(self._heap, (fire_at, w.seq, key))
        self._emit("eviction_scheduled", pod=key, node=node, at=fire_at, taints=_taint_strings(taints))

    def _process_pod_on_node(self, pod: Pod, node_name: str, taints: Sequence[Taint], now: float) -> None:
        key = pod.key
        if not taints:  # callers never pass empty taints; upstream would only cancel here
            self._cancel_with_event(key)
            return
        tolerations: Sequence[Toleration] = pod.tolerations
        if self.default_toleration_seconds:
            tolerations = add_default_toleration_seconds(tolerations, self.not_ready_seconds,
                                                         self.unreachable_seconds)
        all_tolerated, used = get_matching_tolerations(taints, tolerations, bool(self.comparison_operators))
        if not all_tolerated:
            self._cancel_with_event(key)
            self._add_work(key, node_name, now, now, taints)
            return
        min_time = get_min_toleration_time(used)
        if min_time is None:
            self._cancel_with_event(key)
            return
        # Upstream replaces a pending timer only when it was created at this very instant (never, on a
        # real clock); otherwise it keeps it, and AddWork skips a pod that already has work queued.
        # So an existing entry, timed or immediate, stays exactly as first computed.
        self._add_work(key, node_name, now, now + min_time, taints)


def _pods_on(api: Any, node_name: str) -> list[Pod]:
    """The pods bound to a node, in creation order (the controller's pod index)."""
    return [p for p in api.cluster.pods.values() if p.node_name == node_name]
