"""Changing runs: start one from a scenario, queue actions, pause, fork; the worker's `advance_run`.

One module per concept:

- `engine`: building the engine from the stored log (checkpoint + replay) and recording units;
- `cache`: the live engines a worker process keeps between actions;
- `actions`: what users do (start, enqueue, pause, speed, fork);
- `dispatch`: queueing the worker and notifying the run's pages;
- `worker`: `advance_run`, which executes pending actions under the run's lock;
- `forms`: the run page's cluster forms (and the scaleDeployment form) as engine actions;
- `preflight`: a cluster action checked in the request (the engine's rules), before it is queued.

After each commit the run's Channels group `run_<id>` is notified; consumers render from the DB.
"""

from playground.services.runs.actions import (
    CLUSTER_ACTIONS,
    SPEEDS,
    kubernetes_version_of,
    run_enqueue,
    run_fork,
    run_opened,
    run_pause,
    run_set_speed,
    run_start,
)
from playground.services.runs.dispatch import notify, queue_for, resume_unfinished_runs, runs_queue
from playground.services.runs.engine import Engine, apply_unit, engine_view, load_simulation
from playground.services.runs.errors import FieldError, LeaseLost, RunBusy, RunError
from playground.services.runs.forms import FORMS as CLUSTER_FORMS
from playground.services.runs.forms import (
    MAX_REPLICAS,
    NODE_OPS,
    PAUSE_IMAGE,
    TAINT_EFFECTS,
    cluster_action_from_form,
    scale_action_from_form,
)
from playground.services.runs.worker import advance_run

__all__ = [
    "CLUSTER_ACTIONS",
    "CLUSTER_FORMS",
    "MAX_REPLICAS",
    "NODE_OPS",
    "PAUSE_IMAGE",
    "SPEEDS",
    "TAINT_EFFECTS",
    "Engine",
    "FieldError",
    "LeaseLost",
    "RunBusy",
    "RunError",
    "advance_run",
    "apply_unit",
    "cluster_action_from_form",
    "engine_view",
    "kubernetes_version_of",
    "load_simulation",
    "notify",
    "queue_for",
    "resume_unfinished_runs",
    "run_enqueue",
    "run_fork",
    "run_opened",
    "run_pause",
    "run_set_speed",
    "run_start",
    "runs_queue",
    "scale_action_from_form",
]
