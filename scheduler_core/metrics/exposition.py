"""Prometheus text exposition of a run's metrics, through a CollectorRegistry of its own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from scheduler_core.metrics import definitions as d
from scheduler_core.metrics.histogram import Histogram
from scheduler_core.metrics.run_metrics import RunMetrics
from scheduler_core.metrics.wall import PluginWallClock


class RunCollector:
    """A prometheus_client collector reading one RunMetrics (and optionally its wall clock)."""

    def __init__(self, metrics: RunMetrics, wall: PluginWallClock | None = None) -> None:
        self.metrics = metrics
        self.wall = wall

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        yield _counter(d.SCHEDULE_ATTEMPTS, m.attempts_total)
        yield _histogram(d.SCHEDULING_ATTEMPT_DURATION, m.attempt_duration)
        yield _gauge(d.PENDING_PODS, {(q,): n for q, n in m.pending.items()})
        yield _counter(d.QUEUE_INCOMING_PODS, m.incoming)
        yield _histogram(d.POD_SCHEDULING_ATTEMPTS, m.pod_attempts)
        yield _histogram(d.POD_SCHEDULING_SLI_DURATION, m.sli_duration)
        yield _counter(d.PREEMPTION_ATTEMPTS, {(): m.preemption_attempts})
        yield _histogram(d.PREEMPTION_VICTIMS, m.preemption_victims)
        yield _gauge(d.UNSCHEDULABLE_PODS, m.unschedulable)
        yield _counter(d.PLUGIN_EVALUATION, m.plugin_evaluations)
        if self.wall is not None:
            yield _counter(d.PLUGIN_WALL_SECONDS, self.wall.seconds)
            yield _counter(d.PLUGIN_WALL_CALLS, self.wall.calls)


def _counter(defn: d.MetricDef, values: dict[Any, float]) -> Metric:
    fam = CounterMetricFamily(defn.name, defn.help, labels=defn.labels)
    for labels, v in sorted(values.items()):
        fam.add_metric(list(labels), v)
    return fam


def _gauge(defn: d.MetricDef, values: dict[Any, float]) -> Metric:
    fam = GaugeMetricFamily(defn.name, defn.help, labels=defn.labels)
    for labels, v in sorted(values.items()):
        fam.add_metric(list(labels), v)
    return fam


def _histogram(defn: d.MetricDef, h: Histogram) -> Metric:
    fam = HistogramMetricFamily(defn.name, defn.help, labels=defn.labels)
    for labels in sorted(h.series):
        fam.add_metric(list(labels), h.cumulative(labels), sum_value=h.series[labels][1])
    return fam


def registry_for(metrics: RunMetrics, wall: PluginWallClock | None = None) -> CollectorRegistry:
    """A fresh registry holding only this run's metrics (no process or platform collectors)."""
    reg = CollectorRegistry(auto_describe=False)
    reg.register(RunCollector(metrics, wall))
    return reg


def exposition(metrics: RunMetrics, wall: PluginWallClock | None = None) -> str:
    """The run's metrics in the Prometheus text format (version 0.0.4)."""
    return generate_latest(registry_for(metrics, wall)).decode("utf-8")
