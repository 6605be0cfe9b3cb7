"""What one scrape of /metrics returns."""

from __future__ import annotations

import os
from collections.abc import Iterator

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector

from playground.monitoring.collectors import RedisCollector


class _ThisProcess:
    """The default registry (this process's metrics, including django-prometheus's)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def scrape_registry() -> CollectorRegistry:
    """Every web process's metrics when they share PROMETHEUS_MULTIPROC_DIR, else this
    process's; plus what Redis holds."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    registry.register(RedisCollector())
    return registry


def scrape() -> bytes:
    return generate_latest(scrape_registry())
