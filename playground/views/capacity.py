"""The "How many more fit?" page of a scenario.

GET /scenarios/<token>/capacity/                     the form
GET ...?pod=<object id>&max=N  or  ?yaml=<Pod or Deployment>&max=N   the answer (htmx: only it)

Computed in the request for a small scenario; a big one is counted by a worker while the answer
polls this same address (playground.services.capacity). Anyone with the scenario's link may ask,
as with the scenario page; only a worker's answer is kept, for the next viewer.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.presenters.capacity import per_node_table
from playground.selectors.scenarios import scenario_by_share_token
from playground.services.capacity import (
    DEFAULT_COPIES,
    MAX_COPIES,
    CapacityError,
    capacity_answer,
    capacity_choices,
)
from playground.services.capacity_queued import Pending


@require_GET
def scenario_capacity(request: HttpRequest, token: str) -> HttpResponse:
    scenario = scenario_by_share_token(token=token)
    pick = request.GET.get("pod")
    pasted = request.GET.get("yaml")
    context: dict[str, object] = {
        "scenario": scenario, "choices": capacity_choices(scenario=scenario), "pick": pick or "",
        "pasted": pasted or "", "max_text": request.GET.get("max", str(DEFAULT_COPIES)), "max_copies": MAX_COPIES,
    }
    status = 200
    if pick or (pasted and pasted.strip()) or "max" in request.GET:
        try:
            answer = capacity_answer(scenario=scenario, pick=pick, pasted=pasted, max_copies=request.GET.get("max"))
            if isinstance(answer, Pending):
                # The fragment polls this very question until the worker has answered it.
                context["pending"] = answer
                context["poll_url"] = request.get_full_path()
            else:
                context["answer"] = answer
                context["per_node"] = per_node_table(answer)
        except CapacityError as error:
            context["error"] = error.message
            status = 400
    template = ("playground/scenarios/partials/capacity_result.html" if request.htmx
                else "playground/scenarios/capacity.html")
    # htmx swaps 2xx only: an error is shown in place of the answer, so answer it with 200.
    return render(request, template, context, status=200 if request.htmx else status)
