"""The engine's event stream: the contract with the UI and with `trace`.

Every step of the engine is reported as one event: a plain, JSON-serialisable dict with
`seq` (position in the run), `time` (virtual seconds), `type` (one of EVENT_TYPES) and the
type's own fields. Engine code emits unconditionally, as upstream records events: one policy,
the recorder's, says what is kept. A sink declares the kinds it wants (`kinds`; None: all) and
`emit` drops the rest, as it drops everything when nobody listens (`NullRecorder`, or an
`EventSink` not enabled). Only a payload that costs work of its own (it grows with the cluster or
is rebuilt on every step) is guarded, by `wants(kind)`, so a sink that does not want it never
pays for it. The two that grow with the cluster (a cycle's per-node filter verdicts and its score
breakdown) are packed (schema 3): a table of distinct verdict
rows with one row index per evaluated node (the nodes not reached are a count: which ones follows
from the last `node_list` event), and score columns aligned with one node list. Read them
through scheduler_core/events/compact.py (`iter_verdicts`, `verdict_for`, `feasible_nodes`,
`score_table`, `not_evaluated_nodes`), which also reads schema-1 and schema-2 events. When the
only reader is `trace`'s line writer (`EventSink.text_only`), those long lists are stand-ins
that give their JSON text (util.json_list.JsonText): the lines are the same, and no list of
thousands of names is made for nobody.

Kubernetes Events (what `kubectl get events` shows: Scheduled, FailedScheduling, Preempted,
TaintManagerEviction) are one type among them: "k8s_event".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

SCHEMA_VERSION = 3

# type -> what it reports (fields beyond seq/time/type)
EVENT_TYPES: dict[str, str] = {
    "run_started": "seed, nodes, pods, profiles, notes (only when the modelled version leaves part of "
                   "the scenario out, e.g. device claims in v1.30)",
    "cluster_action": "action, params: a user/timeline action applied (addPod, cordon, ...)",
    "timeline_action_failed": "action, kind (Pod|Node), object (the node's name or the pod's namespace/name), "
                              "reason (NotFound|AlreadyExists: the API server's StatusReason; AlreadyBound: a "
                              "failBind of a pod already bound), message (the server's text, e.g. 'nodes "
                              "\"worker-2\" not found'): a due Timeline action whose object a live action, a "
                              "preemption or an eviction removed (or a live action created) since the load; "
                              "skipped, and the run goes on (scheduler_core/actions/refusal.py)",
    "drain": "node, line (kubectl drain's words: 'node/n1 cordoned', 'evicting pod ns/name', 'error when "
             "evicting pods/\"name\" -n \"ns\" (will retry after 5s): ...', 'pod/name evicted', 'node/n1 drained'), "
             "level (info|warning|error): one line of a drainNode action (scheduler_core/actions/drain_node.py)",
    "queue_move": "pod, from, to (activeQ|backoffQ|unschedulable|gated|none), reason, event; when queueing "
                  "hints decided the move: strategy (QueueAfterBackoff|QueueImmediately|QueueSkip, what "
                  "upstream's queue logs as the move's hint) and hints [{event, plugin, hint (Queue|"
                  "QueueSkip), default (no hint function: always Queue)?, error?}: each rejecting plugin's "
                  "hint asked, in order, up to the one that decided]",
    "queue_hints_skipped": "event, count, pods [the first 10: {pod, hints [as in queue_move]}]: a cluster "
                           "event every asked hint answered QueueSkip for, so those pods stay unschedulable",
    "cycle_started": "cycle, pod, profile, attempts",
    "snapshot": "cycle, pod, generation (the snapshot's, counted per run: one more each time UpdateSnapshot "
                "changed it), updated (NodeInfos refreshed from the cache this cycle: the nodes whose "
                "generation is newer than the snapshot's), rebuilt (the node list was rebuilt: nodes "
                "were added or removed, or a zone changed), nodes",
    "prefilter": "cycle, pod, results [per PreFilter plugin, in order, up to the one that ended the "
                 "point: {plugin, code, reasons, node_names (its narrowing, or null)}] (schema 2 and "
                 "before: one event per plugin with those fields; read through "
                 "events.compact.prefilter_results)",
    "filter_verdicts": "cycle, pod, nominated_only, num_to_find, start_index, nodes [evaluated nodes, "
                       "evaluation order], outcome [per evaluated node: index into verdicts], verdicts "
                       "[distinct rows {plugin: {code, reasons?, withNominatedPods?}}; a node the walk "
                       "stopped at because enough were feasible has the row {'_': Cancelled}], "
                       "num_feasible (the feasible nodes are the first num_feasible evaluated nodes "
                       "whose row is all Success/Skip), num_not_evaluated (the rest of the node "
                       "list: see node_list)",
    "node_list": "cycle, pod, nodes [the list the Filter walk goes over, in list order: the walk starts "
                 "at filter_verdicts' start_index and wraps around, so the nodes it did not reach are "
                 "the num_not_evaluated that follow the evaluated ones]; emitted before a cycle's "
                 "filter_verdicts when that list is not the one the previous node_list gave",
    "nominated_node_tried": "cycle, pod, node, feasible",
    "scores": "cycle, pod, nodes [scored nodes], plugins [columns: Score plugins, then extenders], "
              "weights {plugin: weight}, raw {plugin: column}, normalized {plugin: column, only where "
              "Normalize changed raw}, weighted {extender: column} (a plugin's is normalized x weight), "
              "extenders [extender columns; their cells are null for nodes they did not score], "
              "totals [per node, only when the profile has extenders; else the plugins' weighted sum]; "
              "a column is a list aligned with nodes, or one value for every node",
    "selected": "cycle, pod, node, score, ties [nodes with the top score]",
    "extension_point": "cycle, pod, point (Reserve|Permit|PreBind|Bind|PostBind|Unreserve), plugin, code, reasons",
    "assumed": "pod, node",
    "forgotten": "pod, node, why (when a binding failed: its error)",
    "bound": "pod, node",
    "permit_wait": "pod, node, plugin, timeout",
    "extender_call": "cycle, pod, extender (its urlPrefix), verb (filter|prioritize|preempt|bind), url, "
                     "latency_ms (wall time of the recorded call), replayed (answered from the transcript), "
                     "ok, error (upstream's error text, or null), ignorable (an error is then skipped), "
                     "changed: filter {passed [nodes], removed [nodes], failed {node: reason}, "
                     "failedAndUnresolvable {node: reason}}; prioritize {scores {node: 0..10}, "
                     "weighted {node: score x weight x 10}, weight}; preempt {removed_nodes [nodes], "
                     "removed_victims {node: [pod keys]}, candidates {node: [pod keys]}}; bind {node}",
    "postfilter": "cycle, pod, plugin, code, reasons, nominated_node",
    "preemption": "cycle, pod, candidates [{node, victims, num_pdb_violations}], chosen, why",
    "victim_deleted": "pod, preemptor, node",
    "nominated": "pod, node (empty string clears)",
    "node_lifecycle": "node, change (in words: a condition set, a taint added or removed), by (kubelet|"
                      "node-lifecycle-controller): a node's health turned into taints (setNodeCondition)",
    "eviction_scheduled": "pod, node, at, taints",
    "eviction_cancelled": "pod, node",
    "pod_terminating": "pod, by, until: a deleted pod's grace period (graceful termination option)",
    "pod_deleted": "pod, by",
    "resource_claim": "action (created|allocated|reserved|unreserved|deallocated|deleted), claim, "
                      "pod, by (ResourceClaimController|DynamicResources), node, devices "
                      "[driver/pool/device]: a ResourceClaim written through the API",
    "k8s_event": "eventType (Normal|Warning), reason, object, message, kind (Node for a node's event; "
                 "else the object is a pod)",
    "clock": "from, to",
    "storage_change": "kind (PersistentVolume|PersistentVolumeClaim), name, action (created|updated|deleted), "
                      "by (who wrote it: VolumeBinding PreBind, persistentvolume-controller, provisioner, "
                      "ephemeral-volume-controller, garbage-collector), change (what changed, in words)",
    "settled": "settled, pending",
    "descheduler_started": "trigger (manual|interval|timeline), profiles [names], nodes (how many the pass considers)",
    "descheduler_nodes_classified": "strategy (LowNodeUtilization|HighNodeUtilization), profile, nodes [{node, "
                                    "usage {resource: percent of allocatable requested}, thresholds [low, high], "
                                    "class (underutilized|overutilized|appropriately utilized)}], outcome "
                                    "(evicting, or upstream's reason for doing nothing)",
    "descheduler_evicted": "pod, node, strategy, profile, reason (upstream's event reason: the strategy), trigger",
    "descheduler_eviction_failed": "pod, node, strategy, profile, error (the eviction API's refusal, e.g. a "
                                   "PodDisruptionBudget)",
    "descheduler_finished": "trigger, evicted [pod keys], recreated [the controllers' new pods], note",
}


class Recorder(Protocol):
    """Where the engine reports its steps (upstream's EventRecorder, widened to every step)."""

    enabled: bool
    # Whether only a JSON writer reads the events: their long lists may then be stand-ins that
    # give their JSON text (util.json_list.JsonText) instead of lists.
    text_only: bool

    def wants(self, type_: str) -> bool:
        """Whether an event of this kind would be kept (guard costly payloads with it)."""
        ...

    def emit(self, type_: str, **fields: Any) -> None: ...


class NullRecorder:
    """The recorder of a run nobody watches: every event is dropped."""

    __slots__ = ()
    enabled = False
    text_only = False

    def wants(self, type_: str) -> bool:
        return False

    def emit(self, type_: str, **fields: Any) -> None:
        return None


class EventSink:
    """Delivers events; `enabled` is False when no one listens (headless simulate).

    Without a `writer` the sink buffers what it emits in `events` until its owner drains it
    (the web stores a step's events, then empties the list: only one step is ever held). With
    a `writer` every event goes straight to it and nothing is kept, so a trace of any length
    runs in the memory of the run itself (`trace` writes each event as one JSON line).
    `kinds`: the event types this sink keeps (None: every type); the others are not emitted, so
    they take no sequence number."""

    __slots__ = ("enabled", "events", "_seq", "_clock", "_listeners", "_writer", "kinds", "_direct")

    def __init__(self, clock: Callable[[], float], enabled: bool = True,
                 writer: Callable[[dict[str, Any]], None] | None = None,
                 kinds: frozenset[str] | None = None) -> None:
        unknown = sorted(set(kinds or ()) - set(EVENT_TYPES))
        if unknown:
            raise ValueError(f"unknown event types for a sink: {', '.join(unknown)}")
        self.kinds = kinds
        self.enabled = enabled
        self.events: list[dict[str, Any]] = []
        self._seq = 0
        self._clock = clock
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._writer = writer
        # Whether an event goes to a text-only writer and nowhere else (`text_only`, kept
        # current by subscribe): `emit` then hands over its keyword dict as the event.
        self._direct = self.text_only

    def __getstate__(self) -> dict[str, Any]:
        """Checkpoints keep the sequence counter, not the events already delivered (their
        owner stores them) nor the listeners and writer (they belong to whoever watches this
        process)."""
        return {"enabled": self.enabled, "events": [], "_seq": self._seq, "_clock": self._clock,
                "_listeners": [], "_writer": None, "kinds": self.kinds}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self._direct = self.text_only

    def subscribe(self, fn: Callable[[dict[str, Any]], None]) -> None:
        self._listeners.append(fn)
        self.enabled = True
        self._direct = False

    def wants(self, type_: str) -> bool:
        """Whether `emit` would keep an event of this kind."""
        return self.enabled and (self.kinds is None or type_ in self.kinds)

    @property
    def text_only(self) -> bool:
        """Whether the events reach only a writer that declares it reads nothing but their
        JSON text (its `text_only` attribute: events.jsonl.event_line_writer's): nothing is
        buffered and nobody subscribed, so no reader sees a stand-in for a list."""
        return (self._writer is not None and not self._listeners
                and getattr(self._writer, "text_only", False) is True)

    def emit(self, type_: str, **fields: Any) -> None:
        """Record one event; nothing when no one listens (not `enabled`) or the sink does not
        want its kind."""
        if not self.enabled or (self.kinds is not None and type_ not in self.kinds):
            return
        self._seq += 1
        if self._direct and not ("seq" in fields or "time" in fields or "type" in fields):
            # Only a text-only writer reads it: the keyword dict itself is the event (the
            # line writer sorts the keys, so their order is no one's concern), no second dict.
            fields["seq"], fields["time"], fields["type"] = self._seq, self._clock(), type_
            self._writer(fields)
            return
        ev = {"seq": self._seq, "time": self._clock(), "type": type_}
        ev.update(fields)
        if self._writer is not None:
            self._writer(ev)
        else:
            self.events.append(ev)
        for fn in self._listeners:
            fn(ev)

    def drain(self) -> list[dict[str, Any]]:
        """The events buffered since the last drain, handing them over to the caller."""
        out, self.events = self.events, []
        return out

    @property
    def seq(self) -> int:
        return self._seq
