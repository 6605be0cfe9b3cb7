"""The "compare versions" page: a scenario and seed under v1.35 and v1.30, pod by pod.

GET /scenarios/<token>/compare/?seed=N   the page (htmx: only the result, for the seed form)
GET ...?seed=N&gates=A=true,B=true       "gates on vs off": the default version with those gates
                                         against its defaults (an empty value: the scenario's gates)
The comparison is computed by a worker (services.versions.queued): the GET shows it when it is
stored, and otherwise queues it once and answers a "Comparing…" result that polls (htmx, every
second) the same address until the result or its failure is there. Anyone with the scenario's
link may look, as with the scenario page.

GET /runs/<token>/compare/               a fork against the run it was forked from, read from both
                                         runs' stored events (services.versions.fork_compare) by a
                                         worker, polled like the above (?at=: the state asked for)
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.selectors.runs import run_by_share_token
from playground.selectors.scenarios import scenario_by_share_token, scenario_yaml
from playground.services.versions import CompareError
from playground.services.versions.compare import canonical_gates
from playground.services.versions.queued import Failed, Job, Pending, comparison_or_queue, fork_at
from scheduler_core.featuregate import MAX_GATES_TEXT

MAX_SEED = 2**31 - 1


def _seed(value: str | None, default: int) -> int:
    """The seed asked for; CompareError naming the parameter for anything but 0..MAX_SEED."""
    if value in (None, ""):
        return default
    try:
        seed = int(value)
    except ValueError:
        raise CompareError(f"seed: {value!r} is not a whole number.") from None
    if not 0 <= seed <= MAX_SEED:
        raise CompareError(f"seed: {seed} is out of range (0 to {MAX_SEED}).")
    return seed


@require_GET
def scenario_compare(request: HttpRequest, token: str) -> HttpResponse:
    scenario = scenario_by_share_token(token=token)
    context: dict[str, object] = {"scenario": scenario, "seed_text": request.GET.get("seed", str(scenario.seed))}
    status = 200
    try:
        seed = _seed(request.GET.get("seed"), scenario.seed)
        gates = request.GET.get("gates")
        if gates is not None:  # "gates on vs off": the given gates (the scenario's by default)
            gates = gates.strip() or scenario.feature_gates
            context["gates_text"] = gates
            if len(gates) > MAX_GATES_TEXT:
                raise CompareError(f"Feature gates: at most {MAX_GATES_TEXT} characters.")
            job = Job("gates", scenario_yaml(scenario=scenario), seed, gates=canonical_gates(gates))
        else:
            job = Job("versions", scenario_yaml(scenario=scenario), seed)
        context["seed"] = seed
        outcome = comparison_or_queue(job)
        if isinstance(outcome, Failed):
            raise CompareError(outcome.message)
        if isinstance(outcome, Pending):
            context["pending"] = outcome.job.describe()
            context["poll_url"] = request.get_full_path()
        else:
            context["comparison"] = outcome
    except CompareError as error:
        context["error"] = error.message
        status = 400
    template = (
        "playground/scenarios/partials/compare_result.html" if request.htmx else "playground/scenarios/compare.html"
    )
    # htmx swaps 2xx only: an error is shown in place of the result, so answer it with 200.
    return render(request, template, context, status=200 if request.htmx else status)


AT_CHARS = frozenset("0123456789.abcdefghijklmnopqrstuvwxyz_-")


@require_GET
def run_compare(request: HttpRequest, token: str) -> HttpResponse:
    """A fork against its original: the first decision where they part, and what made them part.
    Computed by a worker (up to 200,000 events per run: seconds); `at` (the poll's) keeps the
    page on the comparison it asked for while either run moves on."""
    run = run_by_share_token(token=token)
    context: dict[str, object] = {"run": run}
    status = 200
    at = request.GET.get("at", "")
    if not (0 < len(at) <= 200 and set(at) <= AT_CHARS):
        at = fork_at(run)
    try:
        if not at:
            raise CompareError("This run is not a fork (or the run it was forked from was deleted).")
        outcome = comparison_or_queue(Job("fork", run_id=run.pk, at=at))
        if isinstance(outcome, Failed):
            raise CompareError(outcome.message)
        if isinstance(outcome, Pending):
            context["pending"] = outcome.job.describe()
            context["poll_url"] = f"{request.path}?{urlencode({'at': at})}"
        else:
            context["comparison"] = outcome
    except CompareError as error:
        context["error"] = error.message
        status = 400
    return render(request, "playground/runs/compare.html", context, status=200 if request.htmx else status)
