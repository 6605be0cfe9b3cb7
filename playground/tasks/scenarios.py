"""Scenario tasks: keeping a big scenario's YAML and run start ready for its next Start."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from playground.tasks.limits import Limits, time_limited

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="playground.prepare_scenario_yaml")
def prepare_scenario_yaml_task(self: Task, scenario_id: int) -> None:
    """Seconds of work for a big scenario: meanwhile this process is marked busy, so the runs
    whose engines it holds are sent to another worker rather than wait behind it. Bounded by
    PLAYGROUND_PREPARE_SOFT_TIME_LIMIT / PLAYGROUND_PREPARE_TIME_LIMIT (tasks/limits.py)."""
    from playground.infra.queues import home_queue
    from playground.services.runs import fleet, prepare

    home = home_queue(self.request.hostname) if self.request.hostname else None

    limits = Limits.for_preparing()
    try:
        with time_limited(limits, lambda: prepare.mark_stopped(scenario_id, limits.hard_message())), fleet.busy(home):
            prepare.scenario_prepare_by_id(scenario_id=scenario_id, stopped=limits.soft_message(), home=home)
    except SoftTimeLimitExceeded:  # nothing kept: a start computes it, or tries again
        logger.warning("scenario %s: its start's preparation %s", scenario_id, limits.soft_message())


@shared_task(bind=True, name="playground.check_scenario_upload")
def check_scenario_upload_task(self: Task, upload_id: int) -> None:
    """A big upload's check (services.scenario_uploads): the engine's loader over it and the
    scenario's rows, seconds of CPU that no web request spends. Bounded like a start's
    preparation (PLAYGROUND_PREPARE_SOFT_TIME_LIMIT / PLAYGROUND_PREPARE_TIME_LIMIT): past them
    the upload fails with a line naming the limit, and nothing of it is kept."""
    from playground.infra.queues import home_queue
    from playground.services import scenario_uploads
    from playground.services.runs import fleet

    home = home_queue(self.request.hostname) if self.request.hostname else None
    limits = Limits.for_preparing()
    try:
        with time_limited(limits, lambda: scenario_uploads.upload_fail(upload_id, f"The check {limits.hard_message()}.")), \
                fleet.busy(home):
            scenario_uploads.upload_check(upload_id=upload_id)
    except SoftTimeLimitExceeded:
        scenario_uploads.upload_fail(upload_id, f"The check {limits.soft_message()}.")
