"""The scheduler's metrics for one run, as upstream's pkg/scheduler/metrics names them.

`RunMetrics` recomputes them from the run's event stream (the contract with the UI), so the
metrics at any point of a run's timeline follow from the events up to that point; `exposition`
renders them (and the playground's own wall-time metric, `PluginWallClock`) as Prometheus text
through a prometheus_client CollectorRegistry of the run's own.
"""

from scheduler_core.metrics.exposition import exposition, registry_for
from scheduler_core.metrics.run_metrics import RunMetrics
from scheduler_core.metrics.wall import PluginWallClock

__all__ = ["PluginWallClock", "RunMetrics", "exposition", "registry_for"]
