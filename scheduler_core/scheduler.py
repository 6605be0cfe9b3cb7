"""The scheduler: queue + cache + profiles wired together (upstream scheduler.go).

`Scheduler` builds the pieces from the configuration (one `Framework` per profile, the
scheduling queue with the profiles' queueing hints, the cache and snapshot, the extenders,
opportunistic batching) and is made of two parts that read like their upstream files:
`ScheduleOne` (schedule_one.py: the scheduling and binding cycles) and `EventHandlers`
(eventhandlers.py: the informer handlers). It is a client of the run's API server
(apiserver/server.py), a peer the simulation owns beside it, as upstream's scheduler is a
client of kube-apiserver: it reads the objects through `cluster` (its informers' store), hears
changes through its handlers, and writes through `client` (the binding, nominations, a
preemption's victims, the Events its recorder makes). What stays here is the wiring and the
services the frameworks receive (event stream, preemption's victim deletion).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Pod
from scheduler_core.apiserver.informer_delivery import PendingBindUpdates
from scheduler_core.apiserver.server import APIServer
from scheduler_core.backend.cache.cache import Cache
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.backend.queue.scheduling_queue import PriorityQueue, build_queueing_hint_entries
from scheduler_core.backend.workloadmanager import WorkloadManager
from scheduler_core.config.types import KubeSchedulerConfiguration
from scheduler_core.eventhandlers import EventHandlers
from scheduler_core.events.recorder import EventSink, NullRecorder, Recorder
from scheduler_core.extender import EXTENDER_NAME, ExtenderTranscript, build_extenders, effective_config
from scheduler_core.featuregate.features import DEFAULT_GATES, FeatureGates
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.plugins.registry import get_registry
from scheduler_core.framework.runtime.batch import OpportunisticBatch, batchable_plugins
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.runtime.options import FrameworkOptions
from scheduler_core.framework.runtime.waiting_pods import WaitingPod
from scheduler_core.framework.status import Status
from scheduler_core.schedule_one import ScheduleOne


class VirtualClock:
    """Seconds since the run started; only the simulation loop moves it."""

    __slots__ = ("t",)

    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def now(self) -> float:
        return self.t


class Scheduler(ScheduleOne, EventHandlers):
    """One scheduler process: its configuration, state and services (see the module doc)."""

    def __init__(self, scenario: Scenario, client: APIServer, seed: int = 0, sink: EventSink | None = None,
                 clock: VirtualClock | None = None, extender_transcript: ExtenderTranscript | None = None,
                 feature_gates: FeatureGates = DEFAULT_GATES) -> None:
        self.clock = clock or VirtualClock()
        self.sink: Recorder = sink or NullRecorder()
        self.feature_gates = feature_gates
        self.rng = random.Random(seed)
        self.seed = seed
        # Extenders' ignoredByScheduler resources become NodeResourcesFit's ignoredResources.
        self.config: KubeSchedulerConfiguration = effective_config(scenario.config)
        self.client = client
        self.cluster = client.cluster  # what the informers hold: the objects plugins list
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.extender_transcript = extender_transcript if extender_transcript is not None else ExtenderTranscript()
        self.extenders: list[Any] = build_extenders(self.config, self.extender_transcript, self)
        self.next_start_node_index = 0
        self.recorded_node_list: Any = None
        self.waiting_pods: dict[str, WaitingPod] = {}
        self._deferred_moves: list = []
        self.bind_updates = PendingBindUpdates()
        # Pod groups of Workloads (upstream creates the manager only with GenericWorkload on).
        self.workload_manager = WorkloadManager() if feature_gates.overrides and feature_gates.enabled(
            "GenericWorkload") else None

        registry = get_registry()
        self.profiles: dict[str, Framework] = {}
        for prof in self.config.profiles:
            self.profiles[prof.scheduler_name] = Framework(prof, registry, self.framework_options(),
                                                           feature_gates=feature_gates)
        first = next(iter(self.profiles.values()))
        # With extenders, a pod they rejected ("Extender" plugin) is requeued by any event.
        ext_hint = [(EXTENDER_NAME, None)] if self.extenders else []
        hint_map = {name: build_queueing_hint_entries([*ext_hint, *fwk.enqueue_extensions()])
                    for name, fwk in self.profiles.items()}
        pre_enqueue = {name: fwk.pre_enqueue_plugins for name, fwk in self.profiles.items()}
        self.queue = PriorityQueue(
            less=first.less,
            total_less=first.queue_sort.total_less,
            clock=self.clock,
            pod_initial_backoff_seconds=float(self.config.pod_initial_backoff_seconds),
            pod_max_backoff_seconds=float(self.config.pod_max_backoff_seconds),
            queueing_hint_map=hint_map,
            pre_enqueue_plugins=pre_enqueue,
            queueing_hints_enabled=feature_gates.scheduler_queueing_hints,
            pop_from_backoff_q_enabled=feature_gates.scheduler_pop_from_backoff_q,
        )
        for fwk in self.profiles.values():
            fwk.set_pod_nominator(self.queue)
        self._attach_queue_callbacks()
        # Opportunistic batching (beta, on by default in v1.35), for each profile whose plugins
        # can all sign pods (and that has no extenders).
        self.batchable = {name: batchable_plugins(fwk) for name, fwk in self.profiles.items()}
        self.batches = {name: OpportunisticBatch() for name, pl in self.batchable.items()
                        if pl is not None and feature_gates.opportunistic_batching}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Re-attach the callbacks components drop when pickled (checkpoints)."""
        self.__dict__.update(state)
        self._attach_queue_callbacks()

    def framework_options(self) -> FrameworkOptions:
        """The services every profile's framework receives (upstream's runtime options)."""
        return FrameworkOptions(snapshot_shared_lister=self.snapshot, cluster=self.cluster, clock=self.clock,
                                rng=self.rng, extenders=self.extenders, event_recorder=self.sink,
                                pod_actions=self, client=self.client, current_cycle=self.current_cycle,
                                workload_manager=self.workload_manager)

    def attach_framework(self, fwk: Framework) -> None:
        """Give a framework built without services (a restored checkpoint's) this scheduler's."""
        fwk.set_options(self.framework_options())
        fwk.set_pod_nominator(self.queue)

    def activate_pods(self, pods: list[Pod]) -> None:
        """Handle.Activate for plugins (GangScheduling's Permit)."""
        self.queue.activate(pods)

    def current_cycle(self) -> int:
        """The scheduling cycle number events are stamped with."""
        return self.queue.scheduling_cycle

    def _attach_queue_callbacks(self) -> None:
        self.queue.attach_callbacks(on_move=self._on_queue_move, pod_lister=self.cluster.get_pod,
                                    namespace_labels=self.cluster.namespace_labels, clock=self.clock,
                                    on_hints_skipped=self._on_hints_skipped, hint_recorder=self.sink)

    # ---- events ---------------------------------------------------------------------------
    def _on_queue_move(self, pod_key: str, from_q: str, to_q: str, reason: str,
                       event_label: str | None = None, hints: dict[str, Any] | None = None) -> None:
        if not self.sink.wants("queue_move"):  # every pop calls this: skip building its fields
            return
        if hints is None:
            self.sink.emit("queue_move", pod=pod_key, **{"from": from_q}, to=to_q, reason=reason,
                           event=event_label)
        else:
            self.sink.emit("queue_move", pod=pod_key, **{"from": from_q}, to=to_q, reason=reason,
                           event=event_label, strategy=hints["strategy"], hints=hints["asked"])

    def _on_hints_skipped(self, event_label: str, count: int, sample: list[dict[str, Any]]) -> None:
        self.sink.emit("queue_hints_skipped", event=event_label, count=count, pods=sample)

    def _k8s_event(self, type_: str, reason: str, obj: str, message: str) -> None:
        """The scheduler's event recorder: an Event written to the API server."""
        self.client.record_event(type_, reason, obj, message)

    # ---- API writes (upstream: the scheduler's clientset) ----------------------------------
    def bind_pod(self, pod: Pod, node_name: str) -> Status | None:
        """The binding (DefaultBinder's API call)."""
        return self.client.bind_pod(pod, node_name)

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch the pod's status.nominatedNodeName."""
        self.client.set_nominated_node_name(pod, node_name)

    def responsible_for_pod(self, pod: Pod) -> bool:
        return pod.scheduler_name in self.profiles

    # ---- preemption support (Handle) -----------------------------------------------------------
    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None:
        key = victim.key
        if key not in self.cluster.pods:
            return None
        wp = self.waiting_pods.pop(key, None)
        if wp is not None:
            # A victim still waiting at Permit is rejected rather than deleted.
            self._reject_waiting_pod(wp, "preempted", "DefaultPreemption")
        elif self.client.graceful_termination:
            self.client.terminate(key, "Preempted", "PreemptionByScheduler")
        else:
            self.client.delete_pod(key, by="Preempted")
        self._k8s_event("Normal", "Preempted", key, f"Preempted by pod {preemptor.uid} on node {node_name}")
        self.sink.emit("victim_deleted", pod=key, preemptor=preemptor.key, node=node_name,
                       graceful=self.client.graceful_termination and wp is None)
        return None

    # ---- extenders (HTTP extenders are added by scheduler_core.extender) ---------------------------
    def call_extender_filter(self, ext: Any, pod: Pod, nodes: list) -> tuple[list, dict, dict, str | None]:
        return ext.filter(pod, nodes)

    def apply_extender_scores(self, pod: Pod, nodes: list, scores: list, columns: dict | None) -> None:
        from scheduler_core.extender import apply_extender_scores

        apply_extender_scores(self, pod, nodes, scores, columns)

    def call_extender_bind(self, ext: Any, pod: Pod, host: str) -> str | None:
        return ext.bind(pod, host)

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


__all__ = ["Scheduler", "VirtualClock", "NodeToStatus"]
