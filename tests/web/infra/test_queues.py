"""Tasks are sent through the project's Celery app, whatever app was made in the process since.

Any `Celery(...)` made later (the launcher's probe of the broker, a test's sender) becomes
`celery.current_app`; sending through that one put the project's tasks on another broker (a
stopped Redis of an earlier live test: "could not queue")."""

from __future__ import annotations

from typing import Any

import pytest
from celery import Celery, current_app

from config.celery import app
from playground.infra import queues


def test_a_task_goes_through_the_projects_app_after_another_app_was_made(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, Any]] = []
    monkeypatch.setattr(app, "send_task", lambda name, **kw: sent.append((name, kw)))
    other = Celery("probe", broker="memory://")
    try:
        assert current_app._get_current_object() is other  # what made the bug: the newest app is "current"
        other_sent: list[str] = []
        monkeypatch.setattr(other, "send_task", lambda name, **kw: other_sent.append(name))
        queues.send_task("playground.some_task", (1,), queue="q")
        assert sent == [("playground.some_task", {"args": (1,), "kwargs": {}, "queue": "q"})]
        assert other_sent == []
        assert queues.default_queue() == app.conf.task_default_queue
    finally:
        app.set_current()
