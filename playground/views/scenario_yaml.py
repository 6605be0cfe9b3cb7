"""The scenario's YAML view: the documents a page at a time, and its owner's edit of one page.

A page of documents rather than the whole file, so a 5,000-node scenario's YAML is never one
string on the page; the edit replaces just that page's documents, validated with the rest of
the scenario (services.scenario_objects.scenario_documents_replace), and is refused if the
scenario changed since the page was shown (its stamp).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from playground.models import ScenarioUpload
from playground.ownership import actor_for_request, can_edit, ensure_can_edit
from playground.presenters.load_warnings import NEWER_TAG, NOT_SIMULATED_TAG, REFERENCE_TAG, not_simulated_lines
from playground.presenters.scenarios.yaml_view import page_of_object, page_of_position, yaml_page
from playground.selectors.scenarios import scenario_by_share_token
from playground.services import scenario_objects, scenario_uploads
from playground.services.scenario_validation import ScenarioInvalid
from playground.views.scenario_answers import flash_not_simulated, flash_references, upload_url


@require_http_methods(["GET", "POST"])
def scenario_yaml_view(request: HttpRequest, token: str) -> HttpResponse:
    """The scenario's YAML a page of documents at a time (`?page=N`, or `?object=<id>`: the page
    holding that object). Its owner edits a page in place: POST ``action=save_documents``
    replaces that page's documents (validated with the rest of the scenario)."""
    scenario = scenario_by_share_token(token=token)
    actor = actor_for_request(request)
    objects = scenario.kube_objects.count()
    number = _int(request.GET.get("page"), 1)
    if "object" in request.GET:
        number = page_of_object(scenario, request.GET["object"])
    context: dict[str, Any] = {"scenario": scenario, "can_edit": can_edit(scenario=scenario, actor=actor),
                               "stamp": _stamp(scenario)}
    status = 200
    if request.method == "POST":
        ensure_can_edit(scenario=scenario, actor=actor)
        if request.POST.get("action") != "save_documents":
            return HttpResponseBadRequest("Unknown action")
        first, count = _int(request.POST.get("first"), 0), _int(request.POST.get("count"), 0)
        text = request.POST.get("text", "")
        number = page_of_position(first)
        try:
            if request.POST.get("stamp") != _stamp(scenario):
                raise ScenarioInvalid("The scenario changed since this page was shown: reload it and edit again.")
            if scenario_uploads.needs_worker(text, scenario=scenario):  # the whole scenario is loaded again
                upload = scenario_uploads.upload_later(
                    actor=actor, operation=ScenarioUpload.DOCUMENTS, text=text, scenario=scenario,
                    source=f"documents {first + 1}-{first + count}",
                    params={"first": first, "count": count, "stamp": _stamp(scenario), "page": number},
                )
                return redirect(upload_url(upload))
            saved = scenario_objects.scenario_documents_replace(
                scenario=scenario, actor=actor, first=first, count=count, text=text,
                source=f"documents {first + 1}-{first + count}",
            )
        except ScenarioInvalid as error:
            context.update(error=error.message, edited_text=text)
            status = 400
        else:
            messages.success(request, f"Documents {first + 1}–{first + count} saved ({saved} now).")
            flash_not_simulated(request, not_simulated_lines(getattr(scenario, "not_simulated", ())))
            flash_references(request, getattr(scenario, "not_simulated", ()))
            return redirect(f"{reverse('playground:scenario_yaml', args=[scenario.share_token])}?page={number}")
    context["yaml"] = yaml_page(scenario, objects, number)
    flashed = list(messages.get_messages(request))
    context["flashed"] = [m for m in flashed if NOT_SIMULATED_TAG not in m.tags and REFERENCE_TAG not in m.tags
                          and NEWER_TAG not in m.tags]
    context["not_simulated"] = [m.message for m in flashed if NOT_SIMULATED_TAG in m.tags]
    context["references"] = [m.message for m in flashed if REFERENCE_TAG in m.tags]
    context["newer"] = [m.message for m in flashed if NEWER_TAG in m.tags]
    return render(request, "playground/scenarios/yaml_page.html", context, status=status)


def _int(value: Any, default: int) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return default


def _stamp(scenario: Any) -> str:
    """What a page of the YAML view was cut from: any change to the scenario changes it."""
    return scenario.updated_at.isoformat()
