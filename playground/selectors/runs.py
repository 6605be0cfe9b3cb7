"""Reading runs: one run by its share token, a viewer's runs, frames, the event log, progress.

What a screen of a run shows is built from these by `playground.presenters.runs`.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from playground.models import Run, RunAction, RunEvent, RunFrame
from playground.ownership import Actor, owned_by
from playground.selectors.run_notes import run_started_data

LOG_LIMIT = 150  # log rows a page load or a push carries (the rest: search the log)


def run_by_share_token(*, token: str) -> Run:
    try:
        # The YAML texts (MBs at 5,000 nodes) are read only by the pages that show them.
        return (
            Run.objects.select_related("scenario", "forked_from")
            .defer("scenario_yaml", "scenario__yaml_cache", "forked_from__scenario_yaml")
            .get(share_token=token)
        )
    except Run.DoesNotExist:
        raise Http404("No such run") from None


def run_row_by_share_token(*, token: str) -> Run:
    """The run's own row only (no scenario joined): what a Step or Play post reads. Compiling
    `run_by_share_token`'s three-table query costs a few milliseconds of CPU, a large part of
    such a post; an action that needs the scenario reads it when it does."""
    try:
        return Run.objects.defer("scenario_yaml").get(share_token=token)
    except Run.DoesNotExist:
        raise Http404("No such run") from None


def runs_of_scenario(*, scenario: Any, actor: Actor, limit: int = 10) -> list[Run]:
    """The actor's own runs of `scenario`, newest first (so a closed tab does not lose a run)."""
    owned = owned_by(actor)
    if owned is None:
        return []
    return list(Run.objects.filter(owned, scenario=scenario).order_by("-created_at")[:limit])


def frame_for(*, run: Run, step: int | None = None, cycle: int | None = None) -> RunFrame:
    """The frame at `step`, or the one that ran scheduling cycle `cycle` (else the last frame at or
    before it), or the head. The frame's stored view is left unread (deferred): it is megabytes
    at a big cluster (frame 0 holds the whole cluster: 37 MB at 5,000 x 150,000), and its reader,
    `selectors.frame_views.view_at`, usually has the view cached already."""
    frames = run.frames.defer("view", "plugin_wall")
    if step is not None:
        frame = frames.filter(step__lte=max(step, 0)).order_by("-step").first()
    elif cycle is not None:
        frame = (
            frames.filter(result="cycle", cycle=cycle).order_by("step").first()
            or frames.filter(cycle__lte=cycle).order_by("-step").first()
        )
    else:
        frame = frames.filter(step__lte=run.head_step).order_by("-step").first()
    if frame is None:
        raise Http404("This run has no such step")
    return frame


def frame_events(*, run: Run, frame: RunFrame) -> list[dict[str, Any]]:
    """The events one frame emitted, in sequence order."""
    return list(run.events.filter(step=frame.step).order_by("seq").values_list("data", flat=True))


def node_list_before(*, run: Run, seq: int) -> dict[str, Any] | None:
    """The last `node_list` event before `seq`: the node list a cycle's Filter walk went over
    (the engine writes it only when it changes; events.compact.not_evaluated_nodes)."""
    return (RunEvent.objects.filter(run=run, type="node_list", seq__lt=seq)
            .order_by("-seq").values_list("data", flat=True).first())


def log_rows(*, run: Run, after_seq: int, upto_seq: int, limit: int = LOG_LIMIT) -> tuple[list[dict[str, Any]], int]:
    """Engine events after `after_seq` up to `upto_seq` (the newest `limit` of them), and how many
    were left out: what a (re)connecting viewer appends to its log to catch up."""
    if upto_seq <= after_seq:
        return [], 0  # the viewer has every event up to the screen's (the usual live case)
    rows = RunEvent.objects.filter(run=run, seq__gt=after_seq, seq__lte=upto_seq)
    total = rows.count()
    data = list(rows.order_by("-seq").values_list("data", flat=True)[:limit])
    data.reverse()
    return data, max(0, total - len(data))


def log_range(*, run: Run, after_seq: int, upto_seq: int, limit: int = LOG_LIMIT) -> tuple[list[dict[str, Any]], int]:
    """The oldest `limit` engine events after `after_seq` up to `upto_seq`, and how many more
    there are: a gap of a viewer's log loaded in place, a page at a time, oldest first."""
    rows = RunEvent.objects.filter(run=run, seq__gt=after_seq, seq__lte=upto_seq)
    data = list(rows.order_by("seq").values_list("data", flat=True)[:limit])
    rest = rows.filter(seq__gt=data[-1]["seq"]).count() if data else 0
    return data, rest


def action_counts(*, run: Run) -> tuple[int, int, int]:
    """(all actions, pending or running, running) of the run, in one query: a live page asks on
    every notification."""
    from django.db.models import Count, Q

    active = [RunAction.STATE_PENDING, RunAction.STATE_RUNNING]
    counts = RunAction.objects.filter(run=run).aggregate(
        total=Count("pk"),
        active=Count("pk", filter=Q(state__in=active)),
        running=Count("pk", filter=Q(state=RunAction.STATE_RUNNING)),
    )
    return counts["total"], counts["active"], counts["running"]


def run_progress(*, run: Run, counts: tuple[int, int, int] | None = None) -> dict[str, Any]:
    """What the progress indicator shows: read from the DB, never from the worker's memory.
    `counts`: `action_counts` of the run, when the caller has just read them."""
    total, queued, running_count = action_counts(run=run) if counts is None else counts
    running = (
        run.actions.filter(state=RunAction.STATE_RUNNING).order_by("index").first() if running_count else None
    )
    last_done = (
        run.actions.exclude(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]).order_by("-index").first()
        if total > queued
        else None
    )
    return {
        "queued": queued,
        "running": running,
        "recovering": running is not None and lease_lost(run=run),
        "playing": run.status == Run.STATUS_PLAYING or (running is not None and running.kind == RunAction.KIND_PLAY),
        # The latest finished action, when it failed (an older failure is history, not news).
        "last_failed": last_done if last_done is not None and last_done.state == RunAction.STATE_FAILED else None,
        "last_done": last_done,
        "actions_total": total,
    }


def run_recovering(*, run: Run) -> bool:
    """Has the run an action marked running that no live worker holds (its worker died; the
    run is being queued again)? A running action's worker renews the run's lease every fraction
    of a second (infra/lease.py); when Redis cannot be asked, it is not claimed."""
    return run_id_recovering(run_id=run.pk)


def run_id_recovering(*, run_id: int) -> bool:
    """`run_recovering` by the run's id. The lease is asked first: while a run plays, its worker
    holds it and the answer costs one Redis EXISTS, not a database query (the live pages ask this
    several times a second for every playing run)."""
    from playground.infra import lease

    if lease.held(run_id) is not False:
        return False
    return RunAction.objects.filter(run_id=run_id, state=RunAction.STATE_RUNNING).exists()


def lease_lost(*, run: Run) -> bool:
    """Is nobody holding the lease of a run that has an action running? (Redis cannot be asked:
    not claimed.)"""
    from playground.infra import lease

    return lease.held(run.pk) is False


_WITHOUT_KIND: set[tuple[str, str]] = set()  # (share token, kind) a run's snapshot cannot hold (it never changes)


def snapshot_may_hold(*, run: Run, kind: str) -> bool:
    """Could the run's scenario snapshot hold a document of `kind` (Lesson, Challenge)? Asked of
    the database when the run's YAML was not read (`run_by_share_token` defers it): at
    5,000 x 150,000 it is 70 MB, read and hashed on every page load just to find none. False
    only when the word is nowhere in it, which such a document cannot avoid (`kind: Lesson`)."""
    deferred = getattr(run, "get_deferred_fields", None)  # a stand-in run (tests, previews): its text is there
    if getattr(run, "pk", None) is None or deferred is None or "scenario_yaml" not in deferred():
        return True
    if (run.share_token, kind) in _WITHOUT_KIND:
        return False
    if Run.objects.filter(pk=run.pk, scenario_yaml__contains=kind).exists():
        return True
    _WITHOUT_KIND.add((run.share_token, kind))
    return False


def run_profiles(*, run: Run) -> dict[str, Any]:
    """Each profile's plugins per extension point, as the engine reported them at the start."""
    return dict(run_started_data(run=run).get("profiles") or {})


def score_plugins(*, run: Run, profile: str = "default-scheduler") -> list[str]:
    """The profile's Score plugins, as the engine reported them when the run started."""
    return list((run_profiles(run=run).get(profile) or {}).get("score") or [])


def filter_plugins(*, run: Run, profile: str = "default-scheduler") -> list[str]:
    """The profile's Filter plugins, as the engine reported them when the run started."""
    return list((run_profiles(run=run).get(profile) or {}).get("filter") or [])


def event_types(*, run: Run) -> list[str]:
    """The engine event types this run has logged (for the log search)."""
    return list(run.events.order_by("type").values_list("type", flat=True).distinct())


def scalable_deployments(*, run: Run) -> list[dict[str, Any]]:
    """The Deployments a scaleDeployment action can scale, with their pods at the run's head
    (the engine's view: key "namespace/name", name, namespace, replicaSet, replicas)."""
    from playground.selectors.frame_views import view_at

    return list(view_at(run=run, step=run.head_step).get("deployments") or [])
