"""In-process tests of the compare pages: the worker's task body runs in this process.

`queued.send` is the one seam: instead of queueing the task for a worker, the task function
itself is called here (its real body: the two headless runs, the time limit, the store). The
store is the session's real Redis; earlier tests' comparisons are removed so each test computes
its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from playground.infra import redis_client
from playground.services.versions import queued
from playground.tasks.compare import compare_scenario_task


def forget_comparisons() -> None:
    client = redis_client.shared()
    for key in client.scan_iter("playground:compare*"):
        client.delete(key)


def run_compare_tasks_here(monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str) -> list[str]:
    """Point the store at `redis_url`, run each queued comparison's task here; the keys sent."""
    settings.REDIS_URL = redis_url
    forget_comparisons()
    sent: list[str] = []

    def here(job: queued.Job) -> None:
        sent.append(job.key)
        compare_scenario_task(job.as_dict())

    monkeypatch.setattr(queued, "send", here)
    return sent
