"""The scenario list page (my scenarios, the gallery, a form for a new one), and the two plain
addresses of a scenario that are not pages of their own: a gallery scenario by its slug and
the whole scenario as a YAML download.

Following django-htmx-patterns, a page's view also handles the page's actions: POSTing the new
scenario form creates one (or, for a big upload, hands it to a worker and sends the browser to
its "checking" page, views.scenario_uploads). The editor is views.scenario_editor, the YAML
view views.scenario_yaml.
"""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from playground.forms import NewScenarioForm
from playground.limits import request_too_large, too_large
from playground.models import ScenarioUpload
from playground.ownership import actor_for_request
from playground.presenters.load_warnings import not_simulated_lines
from playground.selectors.scenarios import (
    gallery_scenario_by_slug,
    gallery_scenarios,
    iter_scenario_yaml,
    scenario_by_share_token,
    scenarios_owned_by,
)
from playground.services import lesson_progress, scenario_uploads
from playground.services import scenarios as scenario_service
from playground.services.scenario_validation import ScenarioInvalid
from playground.views.scenario_answers import detail_url, flash_not_simulated, flash_references, upload_url


@require_http_methods(["GET", "POST"])
def scenario_list(request: HttpRequest) -> HttpResponse:
    """GET: my scenarios, the gallery, and a form for a new scenario. POST: create one."""
    actor = actor_for_request(request)
    form = NewScenarioForm(initial={"name": "", "seed": 0})
    if request.method == "POST":
        try:
            if request_too_large(request):
                raise RequestDataTooBig
            form = NewScenarioForm(request.POST, request.FILES)
        except RequestDataTooBig:  # a huge paste: say so, not Django's 400 page
            form = NewScenarioForm(initial={"name": "", "seed": 0})
            form.full_clean()  # unbound: no errors of its own, an empty form to fill in again
            form.cleaned_data = {}
            form.add_error(None, too_large("The request is too large"))
        if form.is_bound and form.is_valid():
            actor = actor_for_request(request, create=True)
            data = form.cleaned_data
            if data["yaml"] and scenario_uploads.needs_worker(data["yaml"]):  # seconds of loading: a worker's
                upload = scenario_uploads.upload_later(
                    actor=actor, operation=ScenarioUpload.CREATE, text=data["yaml"], name=data["name"],
                    description=data["description"], seed=data["seed"], source=data.get("source", "") or data["name"],
                )
                return redirect(upload_url(upload))
            try:
                scenario = scenario_service.scenario_create(
                    actor=actor,
                    name=data["name"],
                    description=data["description"],
                    seed=data["seed"],
                    yaml_text=data["yaml"],
                    source=data.get("source", ""),
                )
            except ScenarioInvalid as error:
                form.add_error("file", error.message)
            else:
                flash_not_simulated(request, not_simulated_lines(scenario.not_simulated))
                flash_references(request, scenario.not_simulated)
                return redirect(detail_url(scenario))
    context = {
        "mine": scenarios_owned_by(actor=actor),
        "gallery": gallery_scenarios(),
        "form": form,
    }
    return render(request, "playground/scenarios/list.html", context, status=400 if form.errors else 200)


@require_GET
def gallery_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A stable address for a built-in scenario (its share token differs per database); the
    learning path's cards link here, so opening one is recorded in the learner's session."""
    scenario = gallery_scenario_by_slug(slug=slug)
    lesson_progress.lesson_opened(request.session, slug)
    return redirect(detail_url(scenario))


@require_GET
def scenario_export(request: HttpRequest, token: str) -> HttpResponse:
    """The whole scenario as multi-document YAML, as a download (anyone with the link). Streamed
    a few hundred documents at a time: a 5,000-node scenario is never one string in memory."""
    scenario = scenario_by_share_token(token=token)
    filename = (slugify(scenario.name) or "scenario") + ".yaml"
    response = StreamingHttpResponse(
        (piece.encode("utf-8") for piece in iter_scenario_yaml(scenario=scenario)),
        content_type="application/yaml; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
