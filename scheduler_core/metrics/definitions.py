"""Names, help texts, labels and buckets of the metrics a run reports.

The `scheduler_` ones are upstream's (pkg/scheduler/metrics/metrics.go, v1.35.4): same name,
type, labels and buckets, so a dashboard built for kube-scheduler reads them. The one
`playground_` metric is this engine's own wall time; it is not the cluster's and it is the only
number here that differs between two runs of the same scenario and seed.
"""

from __future__ import annotations

from dataclasses import dataclass


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """Upstream's metrics.ExponentialBuckets: count upper bounds, start, start*factor, ..."""
    out = []
    b = start
    for _ in range(count):
        out.append(b)
        b *= factor
    return tuple(out)


@dataclass(frozen=True)
class MetricDef:
    name: str  # without the `_total` a counter's sample gets
    kind: str  # counter | gauge | histogram
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()


SCHEDULE_ATTEMPTS = MetricDef(
    "scheduler_schedule_attempts", "counter",
    "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be "
    "scheduled, while 'error' means an internal scheduler problem.", ("result", "profile"))
SCHEDULING_ATTEMPT_DURATION = MetricDef(
    "scheduler_scheduling_attempt_duration_seconds", "histogram",
    "Scheduling attempt latency in seconds (scheduling algorithm + binding)", ("result", "profile"),
    exponential_buckets(0.001, 2, 15))
PENDING_PODS = MetricDef(
    "scheduler_pending_pods", "gauge",
    "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' "
    "means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that "
    "the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that "
    "the scheduler never attempted to schedule because they are gated.", ("queue",))
QUEUE_INCOMING_PODS = MetricDef(
    "scheduler_queue_incoming_pods", "counter",
    "Number of pods added to scheduling queues by event and queue type.", ("queue", "event"))
POD_SCHEDULING_ATTEMPTS = MetricDef(
    "scheduler_pod_scheduling_attempts", "histogram",
    "Number of attempts to successfully schedule a pod.", (), exponential_buckets(1, 2, 5))
POD_SCHEDULING_SLI_DURATION = MetricDef(
    "scheduler_pod_scheduling_sli_duration_seconds", "histogram",
    "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and "
    "might involve multiple scheduling attempts.", ("attempts",), exponential_buckets(0.01, 2, 20))
PREEMPTION_ATTEMPTS = MetricDef(
    "scheduler_preemption_attempts", "counter", "Total preemption attempts in the cluster till now")
PREEMPTION_VICTIMS = MetricDef(
    "scheduler_preemption_victims", "histogram", "Number of selected preemption victims", (),
    exponential_buckets(1, 2, 7))
UNSCHEDULABLE_PODS = MetricDef(
    "scheduler_unschedulable_pods", "gauge",
    "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for "
    "all plugins that caused it to not schedule and so this metric have meaning only when broken down "
    "by plugin.", ("plugin", "profile"))
PLUGIN_EVALUATION = MetricDef(
    "scheduler_plugin_evaluation", "counter",
    "Number of attempts to schedule pods by each plugin and the extension point (available only in "
    "PreFilter, Filter, PreScore, and Score).", ("plugin", "extension_point", "profile"))

# The playground's own: wall time this engine spent in each plugin (not the cluster's latency).
PLUGIN_WALL_SECONDS = MetricDef(
    "playground_plugin_execution_wall_seconds", "counter",
    "Playground only, not a kube-scheduler metric: wall-clock seconds this Python engine spent running "
    "a plugin at an extension point (varies from run to run; every other metric is on the virtual "
    "clock and deterministic).", ("plugin", "extension_point", "profile"))
PLUGIN_WALL_CALLS = MetricDef(
    "playground_plugin_execution_calls", "counter",
    "Playground only, not a kube-scheduler metric: calls of a plugin at an extension point that "
    "playground_plugin_execution_wall_seconds timed.", ("plugin", "extension_point", "profile"))

SCHEDULER_METRICS: tuple[MetricDef, ...] = (
    SCHEDULE_ATTEMPTS, SCHEDULING_ATTEMPT_DURATION, PENDING_PODS, QUEUE_INCOMING_PODS,
    POD_SCHEDULING_ATTEMPTS, POD_SCHEDULING_SLI_DURATION, PREEMPTION_ATTEMPTS, PREEMPTION_VICTIMS,
    UNSCHEDULABLE_PODS, PLUGIN_EVALUATION,
)
