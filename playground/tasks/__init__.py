"""Celery tasks: thin wrappers that call services (imported inside each task's body, so
importing the tasks pulls in no more of the app than Celery needs to register them).

Celery's `autodiscover_tasks` imports this package; importing the modules below registers
their tasks under their stable names (`playground.answer_ping`, `playground.advance_run`).
"""

from playground.tasks import capacity, compare, diagnostics, priority, runs, scenarios

__all__ = ["capacity", "compare", "diagnostics", "priority", "runs", "scenarios"]
