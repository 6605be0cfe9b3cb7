"""A run: the API server, the scheduler and the controllers driven on the virtual clock until
settled.

`Simulation` is what the CLI, the web worker and the tests drive. It owns the API server and
the scheduler as peers (the scheduler a client of the API server, as upstream) and the
controllers (`CONTROLLERS`). It applies the scenario
(nodes in name order, as an API server lists them; bound pods in the informer's list order,
namespace then name; then pending pods in document order), then alternates between scheduling cycles and jumping the clock to the next thing that
can happen: a backoff expiring, a NoExecute eviction, a Permit timeout, a timeline action.
Unschedulable pods waiting only for the periodic 5-minute flush do not keep a run alive.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypeVar

from scheduler_core.actions import drain_node
from scheduler_core.actions.names import ClusterNames, first_missing
from scheduler_core.actions.refusal import timeline_refusal
from scheduler_core.actions.registry import action_names, spec_of
from scheduler_core.api.errors import ActionError
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.scenario_release import released_after_start
from scheduler_core.api.types import Pod, Taint
from scheduler_core.apiserver.server import APIServer
from scheduler_core.apiserver.store.cluster import ClusterState
from scheduler_core.backend.workloadmanager.stall import GangStallDetector, cluster_fingerprint
from scheduler_core.checkpoint import EnginePickler, reset_restoring, restoring
from scheduler_core.controllers.kubelet import GracefulDeletions
from scheduler_core.controllers.nodelifecycle import NodeLifecycleController
from scheduler_core.controllers.tainteviction import TaintEvictionController
from scheduler_core.controllers.timers import Controller
from scheduler_core.descheduler import schedule as desched_schedule
from scheduler_core.dra.versions import dra_version_notes
from scheduler_core.events.recorder import EventSink
from scheduler_core.extender import ExtenderTranscript
from scheduler_core.featuregate import parse_feature_gates
from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION, gates_for, with_overrides
from scheduler_core.framework.plugins.registry import get_registry
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.loader import parse_action
from scheduler_core.loader.limits import Limits
from scheduler_core.scheduler import Scheduler, VirtualClock
from scheduler_core.util.collector import collector_paused, settle_as_old
from scheduler_core.view.pods import PodViewMemo
from scheduler_core.view.run import run_view

__all__ = ["ActionError", "CHECKPOINT_VERSION", "CheckpointVersionError", "Simulation"]

ControllerT = TypeVar("ControllerT", bound=Controller)

KUBERNETES_VERSION = DEFAULT_KUBERNETES_VERSION  # the default modelled version
RESTORE_COLLECT_BYTES = 16 << 20  # checkpoints this big get a full collection before their restore
START_PAUSE_OBJECTS = 20_000  # nodes + pods from which the start runs with the collector paused
# The layout of the engine state a checkpoint holds. Raise it whenever a class's pickled state
# changes (an attribute added, renamed or moved): a checkpoint of another version is refused
# (`CheckpointVersionError`) and its owner rebuilds the engine from the log, which is the truth;
# no class keeps defaults for attributes older checkpoints lack.
CHECKPOINT_VERSION = 10  # 2: the event sink keeps the kinds it wants; 3: the nominator keeps dicts per
# node; 4: NodeInfo counts its pods' volumes, the DRA allocator keeps answers per node; 5: a header
# pickle then the engine's, pods as spec + own fields, plain PodInfos (scheduler_core/checkpoint.py);
# 6: pods pickled whole again (their equal specs shared: `specs_shared`); 7: ClusterState keeps
# `volume_pods` (the keys of pods with volumes, for the storage view); 8: no `specs_shared` (the loader
# shares the replicas' specs and maps, no checkpoint pass); 9: the load summary's entries as columns;
# 10: the scenario's nodes and pods counted, not held (api/scenario_release.py)


class CheckpointVersionError(ValueError):
    """A checkpoint written by another layout of the engine (or by none: before versions)."""

    def __init__(self, found: object) -> None:
        super().__init__(f"checkpoint version {found!r}, this engine reads version {CHECKPOINT_VERSION}: "
                         "rebuild the run from its log")
        self.found = found

# The controllers of every run, in the order their due work runs at one instant: each entry
# builds one from the run's API server (scheduler_core/controllers/timers.py says how to add one).
CONTROLLERS: list[Callable[[APIServer], Controller]] = [
    NodeLifecycleController.for_run,
    TaintEvictionController.for_run,
    GracefulDeletions.for_run,
    drain_node.Drains.for_run,
    desched_schedule.DeschedulerTimer.for_run,
]


class Simulation:
    def __init__(self, scenario: Scenario, seed: int = 0, record_events: bool = False,
                 graceful_termination: bool = False, extender_transcript: ExtenderTranscript | None = None,
                 kubernetes_version: str | None = None,
                 event_writer: Callable[[dict[str, Any]], None] | None = None,
                 feature_gates: str | dict[str, bool] | None = None,
                 event_kinds: frozenset[str] | None = None) -> None:
        """`extender_transcript`: the extender calls to replay (mode "replay": no HTTP) or to
        record into (mode "record", the default when None); see scheduler_core.extender.
        `kubernetes_version`: the kube-scheduler release to model ("v1.35", "v1.30"); None takes
        the scenario's. Raises features.UnknownVersionError for a version not modelled.
        `event_writer`: where each recorded event goes as it is emitted, instead of being
        buffered in `sink.events` (see EventSink).
        `feature_gates`: upstream gates to set ("GangScheduling=true,GenericWorkload=true" or a
        mapping), validated against the version's table; raises featuregate.FeatureGateError.
        `event_kinds`: the event types to record (None: all; see EventSink's `kinds`)."""
        self.scenario = scenario
        self.seed = seed
        version_gates = gates_for(kubernetes_version or scenario.kubernetes_version)
        self.feature_gates = with_overrides(version_gates, parse_feature_gates(feature_gates, version_gates.version))
        if scenario.pod_resources_error is not None and not self.feature_gates.enabled("PodLevelResources"):
            raise scenario.pod_resources_error
        # What this release leaves out of the scenario (e.g. device claims before DRA was on).
        self.version_notes: list[str] = dra_version_notes(scenario, self.feature_gates)
        self.clock = VirtualClock()
        self.sink = EventSink(self.clock.now, enabled=record_events, writer=event_writer, kinds=event_kinds)
        # The API server and the scheduler are peers (the scheduler a client of the API
        # server); the controllers act through the API server and watch it.
        self.apiserver = APIServer(ClusterState.from_scenario(scenario), self.clock, self.sink,
                                   self.feature_gates, graceful_termination=graceful_termination)
        self.scheduler = Scheduler(scenario, self.apiserver, seed=seed, sink=self.sink, clock=self.clock,
                                   extender_transcript=extender_transcript,
                                   feature_gates=self.feature_gates)
        self.controllers: list[Controller] = [build(self.apiserver) for build in CONTROLLERS]
        self.apiserver.connect(self.scheduler, self.controllers)
        self.timeline: list[TimelineAction] = sorted(scenario.timeline, key=lambda a: a.time)
        self.cycles = 0
        self._timeline_scales = 0
        self._settled_reported = False
        self._actions_applied = 0
        self._gang_rounds = GangStallDetector()
        self.drains: list[drain_node.Drain] = []  # kubectl drains in progress (actions/drain_node.py)
        desched_schedule.start(self)
        # A big cluster's start makes objects by the hundred thousand (the store's records, the
        # cache's pod infos, the queue's entries), none of them garbage: with the cyclic collector
        # running, its full collections walked the whole loaded scenario again and again (half
        # the start of 5,000 x 150,000). A small start keeps the collector, so the cycles of an
        # engine dropped just before are freed as they were (a caller that drops a big engine
        # collects first, as the web's prepared start does).
        big = len(scenario.nodes) + len(scenario.pods) >= START_PAUSE_OBJECTS
        with collector_paused() if big else nullcontext():
            self._start()
        # The loaded nodes and pods now live in the store; what later use reads of the scenario
        # is kept, the objects only counted (scheduler_core/api/scenario_release.py says why).
        self.scenario = released_after_start(scenario)

    def _start(self) -> None:
        s = self.scheduler
        api = self.apiserver
        gates = {"featureGates": dict(self.feature_gates.overrides)} if self.feature_gates.overrides else {}
        self.sink.emit("run_started", seed=self.seed, nodes=len(self.scenario.nodes),
                       pods=len(self.scenario.pods),
                       profiles={n: f.plugin_names() for n, f in s.profiles.items()}, **gates,
                       **({"notes": self.version_notes} if self.version_notes else {}))
        for node in sorted(self.scenario.nodes, key=lambda n: n.name):
            api.create_node(node)
        # Pods already running reach the scheduler through the informer's initial list, which
        # the API server returns in key order (namespace, then name), not in document order.
        # Each node's pod order decides, e.g., which equal victim preemption spares.
        for pod in sorted((p for p in self.scenario.pods if p.node_name), key=lambda p: (p.namespace, p.name)):
            api.create_pod(pod)
        for pod in self.scenario.pods:
            if not pod.node_name:
                api.create_pod(pod)

    # ---- actions ---------------------------------------------------------------------------
    def apply_action(self, action: str, params: dict[str, Any]) -> None:
        """Apply one user/timeline action now; it becomes the cluster event upstream would see.
        Raises ActionError (and changes nothing) when the action names a missing object or
        would create one that exists, or its spec refuses it (scheduler_core/actions/)."""
        spec = spec_of(action)
        missing = first_missing(spec.refs(params), ClusterNames(self))
        if missing is not None:
            raise ActionError(missing.message())
        spec.check(self, params)
        self._settled_reported = False
        self._actions_applied += 1
        desched_schedule.rearm(self)
        self.sink.emit("cluster_action", action=action, params=_jsonable(params))
        spec.apply(self, params)

    def mark_changed(self) -> None:
        """The cluster changed outside apply_action (a controller acted): report settling anew."""
        self._settled_reported = False

    def apply_manifest_action(self, obj: dict[str, Any], index: int = 0,
                              limits: Limits | None = None) -> TimelineAction:
        """Parse a live action given as plain data ({"action": "addTaint", "node": "n1",
        "taint": {...}}), validate it, apply it at the current virtual time, and return it.
        Raises ScenarioError / ActionError with a clear message; nothing changes then.
        `limits`: the node and pod limits the cluster may not pass (the caller's, e.g. the web's
        settings; a scenario's own timeline was counted when it was loaded)."""
        spec = spec_of(obj["action"]) if isinstance(obj, dict) and isinstance(obj.get("action"), str) \
            and obj["action"] in action_names() else None
        if spec is not None and (done := spec.live(self, obj, index, limits)) is not None:
            return done  # an action that is more than one change (scaleDeployment, runDescheduler)
        act = parse_action(obj, self.scenario, at=self.clock.now(), index=index)
        if limits is not None:
            self._check_room(act.action, limits)
        self.apply_action(act.action, act.params)
        return act

    def _check_room(self, action: str, limits: Limits) -> None:
        """ActionError when adding a node or a pod would pass `limits`."""
        cs = self.scheduler.cluster
        if action == "addNode" and len(cs.nodes) + 1 > limits.max_nodes:
            raise ActionError(limits.refusal("max_nodes", f"too many nodes ({len(cs.nodes) + 1:,})"))
        if action == "addPod" and len(cs.pods) + 1 > limits.max_pods:
            raise ActionError(limits.refusal("max_pods", f"too many pods ({len(cs.pods) + 1:,})"))

    def pod_from_manifest(self, manifest: dict[str, Any], index: int) -> Pod:
        """The Pod a controller creates during the run (an evicted pod's replacement), read by the
        addPod action's parser at the current virtual time, so it is defaulted and admitted as a
        scenario's pod is; `index` makes its uid and creation index unique in the run. Not created
        yet. The controllers and the descheduler sit below the loader and reach it through here.
        ScenarioError when the manifest does not load."""
        act = parse_action({"action": "addPod", "pod": manifest}, self.scenario, at=self.clock.now(), index=index)
        pod: Pod = act.params["pod"]
        return pod

    # ---- the loop --------------------------------------------------------------------------
    def _process_due(self) -> None:
        """Everything scheduled for the current instant, in a fixed order."""
        now = self.clock.now()
        while self.timeline and self.timeline[0].time <= now:
            a = self.timeline.pop(0)
            spec = spec_of(a.action)
            if spec.due(self, a):
                pass  # an action that is more than one change took its own path
            elif (refusal := timeline_refusal(spec, a.params, self)) is not None:
                # Its object went (or came) since the load: the API server refuses the call and
                # the run goes on (scheduler_core/actions/refusal.py).
                self.sink.emit("timeline_action_failed", **refusal.fields())
            else:
                self.apply_action(a.action, a.params)
        for controller in self.controllers:  # in list order (see CONTROLLERS)
            if controller.run_due(self, now):
                self._settled_reported = False
        self.scheduler.queue.run_due_timers(now)

    def next_wakeup(self) -> float | None:
        """When something can next change an outcome (None: nothing pending: settled)."""
        s = self.scheduler
        cands = []
        if self.timeline:
            cands.append(self.timeline[0].time)
        for controller in self.controllers:
            t = controller.next_wakeup(self)
            if t is not None:
                cands.append(t)
        t = s.next_permit_deadline()
        if t is not None:
            cands.append(t)
        t = s.queue.next_backoff_wakeup(self.clock.now())
        if t is not None:
            cands.append(t)
        if not cands:
            return None
        # The 5-minute leftover flush is no reason to keep running, but it happens on the way.
        t = s.queue.next_leftover_wakeup(self.clock.now())
        return min(cands) if t is None else min(min(cands), t)

    def step(self, max_time: float = 3600.0) -> str:
        """One unit: a scheduling cycle, or a jump of the clock to the next timer.
        Returns "cycle", "clock" or "settled" / "max-time"."""
        self._process_due()
        if self.scheduler.schedule_one():
            self.cycles += 1
            self._settled_reported = False
            desched_schedule.rearm(self)
            return "cycle"
        # Permit timeouts due now fire one at a time, each once the scheduling loop is idle:
        # the loop runs between two members' timers, as it does upstream between goroutines.
        wp = self.scheduler.due_permit_wait()
        if wp is not None:
            if not self._gang_stalled(wp):
                self.scheduler.expire_permit_wait(wp)
                self._settled_reported = False
                return "clock"
            if not self._settled_reported:
                self.sink.emit("settled", settled=True)
            self._settled_reported = True
            return "settled"
        t = self.next_wakeup()
        if t is None:
            if not self._settled_reported:
                self.sink.emit("settled", settled=True)
            self._settled_reported = True
            return "settled"
        if t > max_time:
            return "max-time"
        self.advance_clock(max(t, self.clock.now()))
        return "clock"

    def _gang_stalled(self, wp: Any) -> bool:
        """A gang member's timeout that would repeat its group's last round unchanged ends the
        run (backend.workloadmanager.stall)."""
        wm = self.scheduler.workload_manager
        group = wm.group_key(wp.qpi.pod) if wm is not None else None
        if group is None:
            return False
        fp = cluster_fingerprint(self.scheduler, self._actions_applied)
        if self._gang_rounds.stalled(group, min(wp.pending.values()), fp):
            self.sink.emit("gang_stalled", workload=group[1], podGroup=group[2],
                           waiting=sorted(self.scheduler.waiting_pods))
            return True
        return False

    def advance_clock(self, t: float) -> None:
        if t < self.clock.now():
            raise ValueError("the virtual clock cannot go back")
        if t != self.clock.now():
            self.sink.emit("clock", **{"from": self.clock.now()}, to=t)
        self.clock.t = t

    def run(self, max_time: float = 3600.0) -> bool:
        """Run until settled (True) or until the next thing would happen after max_time."""
        while True:
            r = self.step(max_time)
            if r == "settled":
                return True
            if r == "max-time":
                return False

    # ---- checkpoints -----------------------------------------------------------------------
    def checkpoint(self) -> bytes:
        """The whole engine state, restorable bit-identically with `restore`.

        Two pickles one after the other: a small header (CHECKPOINT_VERSION, the scheduler
        configuration and the feature gates) and the engine, written by
        scheduler_core/checkpoint.py (plugins are not serialised, some hold closures: the
        profiles are rebuilt from the configuration on restore and every reference to a
        framework or a plugin is re-pointed at the rebuilt one; the replicas of a template share
        what the loader gave them, so it is written once). The collector
        is paused while the engine is written: pickling makes a
        temporary object or two per object written, which would otherwise set off collections
        that walk all of a big engine's millions of objects."""
        buf = io.BytesIO()
        pickle.dump({"version": CHECKPOINT_VERSION, "config": self.scheduler.config,
                     "gates": self.scheduler.feature_gates}, buf, protocol=pickle.HIGHEST_PROTOCOL)
        with collector_paused():
            EnginePickler(buf).dump(self)
        return buf.getvalue()

    @staticmethod
    def restore(blob: bytes) -> Simulation:
        """The engine a checkpoint holds. Raises CheckpointVersionError (before building
        anything) when it was written with another CHECKPOINT_VERSION."""
        # A full collection first frees an engine just dropped (its cycles) before its
        # replacement is built, which matters only when the engine is big: it walks every
        # object of the process, and a worker holding a class's thirty small engines paid
        # 0.1-0.2 s for it on each 0.15 s restore of a 100-node engine.
        big = len(blob) >= RESTORE_COLLECT_BYTES
        with collector_paused(collect_first=big):
            sim = Simulation._restore(blob)
            if big:  # millions of long-lived objects: not walked by the next young collections
                settle_as_old()
            return sim

    @staticmethod
    def checkpoint_version(blob: bytes) -> object:
        """The CHECKPOINT_VERSION a checkpoint was written with (None: before versions); reads
        only the header, no engine state."""
        return _version_of(pickle.loads(blob))

    @staticmethod
    def _restore(blob: bytes) -> Simulation:
        stream = io.BytesIO(blob)
        header = pickle.load(stream)
        found = _version_of(header)
        if found != CHECKPOINT_VERSION:
            raise CheckpointVersionError(found)
        registry = get_registry()
        gates = header["gates"]
        frameworks = {p.scheduler_name: Framework(p, registry, feature_gates=gates)
                      for p in header["config"].profiles}
        token = restoring(frameworks)
        try:
            sim: Simulation = pickle.load(stream)
        finally:
            reset_restoring(token)
        for fwk in frameworks.values():
            sim.scheduler.attach_framework(fwk)
        return sim

    def controller(self, kind: type[ControllerT]) -> ControllerT:
        """The run's controller of class `kind` (the first, if a list has two)."""
        return next(c for c in self.controllers if isinstance(c, kind))

    @property
    def extender_transcript(self) -> ExtenderTranscript:
        """Every extender call of this run (export with `.to_json()`)."""
        return self.scheduler.extender_transcript

    def fork(self) -> Simulation:
        """An independent copy (same state, same future given the same actions)."""
        return Simulation.restore(self.checkpoint())

    # ---- what the UI shows -----------------------------------------------------------------
    def view(self, queue_limit: int | None = None, node_memo: dict[str, Any] | None = None,
             pod_memo: PodViewMemo | None = None, events: bool = True) -> dict[str, Any]:
        """The run's current state as plain JSON, which the web UI renders (scheduler_core/view/run.py
        says what it holds and what the memos and `events` do)."""
        return run_view(self, queue_limit, node_memo, pod_memo, events)

    # ---- results ---------------------------------------------------------------------------
    def result(self, settled: bool) -> dict[str, Any]:
        """The `simulate` JSON document (docs: ../shared/docs/simulate-contract.md)."""
        cs = self.scheduler.cluster
        pods = []
        for key in cs.all_pods:
            rec = cs.records[key]
            cur = cs.pods.get(key)
            ns, name = key.split("/", 1)
            pods.append({
                "namespace": ns,
                "name": name,
                "status": rec.status,
                "node": rec.node if rec.status == "Bound" else None,
                "nominatedNodeName": (cur.nominated_node_name or None) if cur is not None else None,
                "deletedBy": rec.deleted_by if rec.status == "Deleted" else None,
                "deletedAt": rec.deleted_at if rec.status == "Deleted" else None,
                "message": rec.message if rec.status == "Pending" else None,
            })
        doc: dict[str, Any] = {"kubernetesVersion": self.feature_gates.version}
        if self.feature_gates.overrides:  # absent in a default run, whose document stays as it was
            doc["featureGates"] = dict(self.feature_gates.overrides)
        return doc | {
            "seed": self.seed,
            "settled": settled,
            "clock": self.clock.now(),
            "cycles": self.cycles,
            "pods": pods,
            "events": [e.to_json() for e in cs.events],
        }


def _version_of(outer: object) -> object:
    return outer.get("version") if isinstance(outer, dict) else None


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if hasattr(v, "key"):
        return v.key
    if hasattr(v, "name"):
        return v.name
    if isinstance(v, Taint):
        return v.to_string()
    return repr(v)

