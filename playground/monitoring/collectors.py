"""Metrics read when /metrics is scraped: what lives in Redis, shared by every web process and
worker (so no process has to count it itself)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from playground.infra import redis_client
from playground.infra.queues import runs_queue

logger = logging.getLogger(__name__)

RUN_STEPS_KEY = "playground:metrics:run-steps"
PRIORITIES = 10  # kombu keeps one Redis list per priority (config/settings.py priority_steps)


def record_steps(n: int) -> None:
    """A worker stored `n` more steps of some run (best effort: metrics never fail a run)."""
    if n <= 0:
        return
    try:
        redis_client.shared().incrby(RUN_STEPS_KEY, n)
    except Exception:
        logger.debug("could not count %s stored steps", n, exc_info=True)


def celery_queues(client: Any) -> list[str]:
    """The run queues: the shared one, the extenders' one, and each live worker's home queue."""
    from playground.services.runs.fleet import alive_queues

    shared = runs_queue() or "celery"
    names = [shared]
    extender = getattr(settings, "PLAYGROUND_EXTENDER_QUEUE", "")
    if extender:
        names.append(f"{runs_queue()}.{extender}" if runs_queue() else extender)
    names.extend(alive_queues(client))
    return sorted(set(names))


class RedisCollector:
    """Celery queue depth per queue, and the steps every run has stored (a counter: its rate is
    steps per second)."""

    def collect(self) -> Iterator[Metric]:
        from kombu.transport.redis import Channel

        depth = GaugeMetricFamily("playground_celery_queue_depth",
                                  "Celery tasks waiting in a queue for a worker (every priority).", labels=["queue"])
        steps = CounterMetricFamily("playground_run_steps", "Steps of runs the workers have stored.")
        up = GaugeMetricFamily("playground_redis_up", "1 when this scrape could read Redis.")
        try:
            client = redis_client.shared()
            queues = celery_queues(client)
            with client.pipeline(transaction=False) as pipe:
                for name in queues:
                    for p in range(PRIORITIES):
                        pipe.llen(f"{name}{Channel.sep}{p}" if p else name)
                pipe.get(RUN_STEPS_KEY)
                answers = pipe.execute()
        except Exception as error:
            logger.warning("metrics: Redis unreachable: %s", error)
            up.add_metric([], 0)
            yield up
            return
        for i, name in enumerate(queues):
            depth.add_metric([name], sum(answers[i * PRIORITIES:(i + 1) * PRIORITIES]))
        steps.add_metric([], int(answers[-1] or 0))
        up.add_metric([], 1)
        yield depth
        yield steps
        yield up
