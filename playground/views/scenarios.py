"""Scenario pages: the list (mine + gallery) and the editor, each one view with its actions.

Following django-htmx-patterns, a page's view also handles the page's actions (POST with an
``action`` field). htmx requests get back the fragment that changed (the editor, or one form);
plain form posts get a redirect or the whole page, so everything also works without htmx.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from playground.forms import (
    FORM_BY_KIND,
    BulkNodesForm,
    NewScenarioForm,
    PodBatchForm,
    ScenarioDetailsForm,
    SchedulerConfigForm,
    YamlImportForm,
)
from playground.limits import too_large
from playground.ownership import actor_for_request, can_edit, ensure_can_edit
from playground.presenters.load_warnings import NOT_SIMULATED_TAG, not_simulated_lines
from playground.selectors.runs import runs_of_scenario
from playground.selectors.scenarios import (
    gallery_scenario_by_slug,
    gallery_scenarios,
    scenario_by_share_token,
    scenario_config_object,
    scenario_counts,
    scenario_listings,
    scenario_object,
    scenario_yaml,
    scenarios_owned_by,
)
from playground.selectors.workload_pods import workload_pods
from playground.services import scenarios as scenario_service
from playground.services.cluster_import import scenario_import_any
from playground.services.scenarios import ScenarioInvalid
from playground.views import read_cache
from scheduler_core.features import SUPPORTED_VERSIONS

SECTIONS = (
    ("Node", "Nodes"),
    ("Pod", "Pods"),
    ("PriorityClass", "Priority classes"),
    ("PodDisruptionBudget", "Pod disruption budgets"),
)


def _is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


# ---- the list ------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def scenario_list(request: HttpRequest) -> HttpResponse:
    """GET: my scenarios, the gallery, and a form for a new scenario. POST: create one."""
    actor = actor_for_request(request)
    form = NewScenarioForm(initial={"name": "", "seed": 0})
    if request.method == "POST":
        try:
            form = NewScenarioForm(request.POST, request.FILES)
        except RequestDataTooBig:  # a huge paste: say so, not Django's 400 page
            form = NewScenarioForm(initial={"name": "", "seed": 0})
            form.full_clean()  # unbound: no errors of its own, an empty form to fill in again
            form.cleaned_data = {}
            form.add_error(None, too_large("The request is too large"))
        if form.is_bound and form.is_valid():
            actor = actor_for_request(request, create=True)
            data = form.cleaned_data
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
                _flash_not_simulated(request, not_simulated_lines(scenario.not_simulated))
                return redirect(_detail_url(scenario))
    context = {
        "mine": scenarios_owned_by(actor=actor),
        "gallery": gallery_scenarios(),
        "form": form,
    }
    return render(request, "playground/scenarios/list.html", context, status=400 if form.errors else 200)


def _detail_url(scenario: Any) -> str:
    return reverse("playground:scenario", args=[scenario.share_token])


@require_GET
def gallery_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A stable address for a built-in scenario (its share token differs per database)."""
    return redirect(_detail_url(gallery_scenario_by_slug(slug=slug)))


@require_GET
def scenario_export(request: HttpRequest, token: str) -> HttpResponse:
    """The whole scenario as multi-document YAML, as a download (anyone with the link)."""
    scenario = scenario_by_share_token(token=token)
    filename = (slugify(scenario.name) or "scenario") + ".yaml"
    response = HttpResponse(scenario_yaml(scenario=scenario), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# ---- the editor ------------------------------------------------------------------------------------


def _object_form(kind: str, obj: Any = None, data: Any = None) -> Any:
    form_class = FORM_BY_KIND[kind]
    if data is not None:
        return form_class(data, prefix=kind.lower())
    initial = form_class.initial_from(obj.manifest) if obj is not None else None
    return form_class(initial=initial, prefix=kind.lower())


def _editor_context(request: HttpRequest, scenario: Any, actor: Any, **overrides: Any) -> dict[str, Any]:
    editable = can_edit(scenario=scenario, actor=actor)
    listings = scenario_listings(scenario=scenario)
    editing: dict[str, Any] = overrides.pop("editing", {})
    bound: dict[str, Any] = overrides.pop("bound", {})
    sections = []
    for kind, title in SECTIONS:
        sections.append(
            {
                "kind": kind,
                "title": title,
                "slug": kind.lower(),
                "listing": listings[kind],
                "form": bound.get(kind) or _object_form(kind),
                "editing": editing.get(kind),
            }
        )
    config_object = scenario_config_object(scenario=scenario)
    # Flashed messages (after a plain post's redirect): the "not simulated" lines form one list.
    flashed = list(messages.get_messages(request))
    context = {
        "flashed": [m for m in flashed if NOT_SIMULATED_TAG not in m.tags],
        "not_simulated": [m.message for m in flashed if NOT_SIMULATED_TAG in m.tags],
        "scenario": scenario,
        "can_edit": editable,
        "sections": sections,
        "other": listings["other"],
        "counts": (counts := scenario_counts(scenario=scenario)),
        "workload_pods": workload_pods(scenario=scenario, counts=counts),
        "config_object": config_object,
        "config_form": bound.get("config")
        or SchedulerConfigForm(
            initial=SchedulerConfigForm.initial_from(config_object.manifest if config_object else None),
            prefix="config",
        ),
        "details_form": bound.get("details")
        or ScenarioDetailsForm(
            initial={"name": scenario.name, "description": scenario.description, "seed": scenario.seed},
            prefix="details",
        ),
        "bulk_nodes_form": bound.get("bulk_nodes") or BulkNodesForm(prefix="bulknodes"),
        "pod_batch_form": bound.get("pod_batch") or PodBatchForm(prefix="podbatch"),
        "yaml": scenario_yaml(scenario=scenario),
        "import_form": bound.get("import"),
        "share_url": request.build_absolute_uri(_detail_url(scenario)),
        "my_runs": runs_of_scenario(scenario=scenario, actor=actor),
        "kubernetes_versions": SUPPORTED_VERSIONS,  # the default (v1.35) first: preselected
        # Room for the runs issue: a link may point into a run at a given cycle.
        "run_id": request.GET.get("run", ""),
        "cycle": request.GET.get("cycle", ""),
    }
    context.update(overrides)
    return context


def _respond(
    request: HttpRequest, scenario: Any, actor: Any, *, ok: bool, notice: str = "", warnings: Any = (), **context: Any
) -> HttpResponse:
    """After an action: the editor fragment (htmx), or a redirect / the whole page (plain post).
    `warnings` are the loader's LoadWarnings for what the action brought in, shown once as the
    "accepted but not simulated" list."""
    lines = not_simulated_lines(warnings)
    if not _is_htmx(request):
        if ok:
            if notice:
                messages.success(request, notice)
            _flash_not_simulated(request, lines)
            return redirect(_detail_url(scenario))
        return render(
            request,
            "playground/scenarios/detail.html",
            _editor_context(request, scenario, actor, **context),
            status=400,
        )
    if lines:
        context["not_simulated"] = lines
    return render(
        request,
        "playground/scenarios/partials/editor.html",
        _editor_context(request, scenario, actor, notice=notice, **context),
        # htmx swaps 2xx only: answer errors with 200 so the form with its messages is shown.
    )


def _flash_not_simulated(request: HttpRequest, lines: list[str]) -> None:
    for line in lines:
        messages.warning(request, line, extra_tags=NOT_SIMULATED_TAG)


@require_http_methods(["GET", "POST"])
def scenario_detail(request: HttpRequest, token: str) -> HttpResponse:
    """The scenario page: editor for its owner, read-only for everyone else with the link.

    GET ``?edit=<object id>`` (htmx) answers with that object's form filled in;
    ``?new=<kind>`` with an empty form. POST ``action=...`` performs one editor action.
    Reserved for runs: ``?run=<id>&cycle=<n>``.
    """
    scenario = scenario_by_share_token(token=token)
    actor = actor_for_request(request)
    if request.method == "GET":
        if _is_htmx(request) and ("edit" in request.GET or "new" in request.GET):
            return _object_form_fragment(request, scenario, actor)
        return _read_only_or_render(request, scenario, actor)

    try:
        action = request.POST.get("action", "")
    except RequestDataTooBig:
        return _respond(
            request, scenario, actor, ok=False,
            error=too_large("The request is too large"),
        )
    if action == "fork":
        actor = actor_for_request(request, create=True)
        fork = scenario_service.scenario_fork(scenario=scenario, actor=actor)
        messages.success(request, "Forked: this copy is yours to edit.")
        if _is_htmx(request):
            return HttpResponseClientRedirect(_detail_url(fork))
        return redirect(_detail_url(fork))
    handler = _ACTIONS.get(action)
    if handler is None:
        return HttpResponseBadRequest("Unknown action")
    ensure_can_edit(scenario=scenario, actor=actor)
    return handler(request, scenario, actor)


def _read_only_or_render(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    """The scenario page; for a read-only viewer with no runs of it, from the read-only cache
    (keyed by what the page shows: any edit changes `updated_at` or the objects)."""

    def page() -> HttpResponse:
        return render(request, "playground/scenarios/detail.html", _editor_context(request, scenario, actor))

    if can_edit(scenario=scenario, actor=actor) or runs_of_scenario(scenario=scenario, actor=actor, limit=1):
        return page()
    objects = scenario.kube_objects.aggregate(n=Count("pk"), last=Max("pk"))
    key = read_cache.cache_key(
        "scenario",
        (scenario.pk, scenario.share_token, scenario.updated_at, objects["n"], objects["last"], request.get_host(),
         request.get_full_path(), _is_htmx(request)),
    )
    return read_cache.serve(request, key, page)


def _object_form_fragment(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    if not can_edit(scenario=scenario, actor=actor):
        raise PermissionDenied("Only the owner can edit this scenario.")
    obj = scenario_object(scenario=scenario, object_id=request.GET.get("edit"))
    kind = obj.kind if obj is not None else request.GET.get("new", "")
    if kind not in FORM_BY_KIND:
        raise Http404("No form for that kind")
    section = dict(zip(("kind", "title"), next(s for s in SECTIONS if s[0] == kind), strict=True))
    section.update(slug=kind.lower(), form=_object_form(kind, obj), editing=obj)
    return render(
        request,
        "playground/scenarios/partials/object_form.html",
        {"scenario": scenario, "section": section, "can_edit": True},
    )


def _save_object(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    kind = request.POST.get("kind", "")
    if kind not in FORM_BY_KIND:
        return HttpResponseBadRequest("Unknown kind")
    obj = scenario_object(scenario=scenario, object_id=request.POST.get("object_id"))
    form = _object_form(kind, data=request.POST)
    if form.is_valid():
        manifest = form.to_manifest(obj.manifest if obj is not None else None)
        try:
            saved = scenario_service.scenario_object_save(
                scenario=scenario, actor=actor, manifest=manifest, object_id=obj.pk if obj else None
            )
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            shown = f"{saved.namespace}/{saved.name}" if saved.namespace else saved.name
            return _respond(request, scenario, actor, ok=True, notice=f"{kind} {shown} saved.", warnings=saved.not_simulated)
    return _respond(request, scenario, actor, ok=False, bound={kind: form}, editing={kind: obj})


def _delete_object(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    obj = scenario_object(scenario=scenario, object_id=request.POST.get("object_id"))
    if obj is None:
        return HttpResponseBadRequest("Which object?")
    try:
        scenario_service.scenario_object_delete(scenario=scenario, actor=actor, object_id=obj.pk)
    except ScenarioInvalid as error:
        return _respond(request, scenario, actor, ok=False, error=f"Cannot delete {obj}: {error.message}")
    return _respond(request, scenario, actor, ok=True, notice=f"{obj} deleted.")


def _save_config(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = SchedulerConfigForm(request.POST, prefix="config")
    if form.is_valid():
        try:
            scenario_service.scenario_config_save(scenario=scenario, actor=actor, config=form.cleaned_data["config"])
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            return _respond(request, scenario, actor, ok=True, notice="Scheduler configuration saved.")
    return _respond(request, scenario, actor, ok=False, bound={"config": form})


def _update_details(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = ScenarioDetailsForm(request.POST, prefix="details")
    if form.is_valid():
        data = form.cleaned_data
        scenario_service.scenario_update_details(
            scenario=scenario, actor=actor, name=data["name"], description=data["description"], seed=data["seed"]
        )
        return _respond(request, scenario, actor, ok=True, notice="Details saved.")
    return _respond(request, scenario, actor, ok=False, bound={"details": form})


def _bulk_nodes(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = BulkNodesForm(request.POST, prefix="bulknodes")
    if form.is_valid():
        data = form.cleaned_data
        try:
            created = scenario_service.scenario_nodes_add_bulk(
                scenario=scenario,
                actor=actor,
                count=data["count"],
                prefix=data["prefix"],
                zones=data["zones"],
                template=form.template(),
            )
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            return _respond(request, scenario, actor, ok=True, notice=f"{len(created)} nodes added.")
    return _respond(request, scenario, actor, ok=False, bound={"bulk_nodes": form})


def _pod_batch(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = PodBatchForm(request.POST, prefix="podbatch")
    if form.is_valid():
        data = form.cleaned_data
        try:
            created = scenario_service.scenario_pods_add_batch(
                scenario=scenario,
                actor=actor,
                count=data["count"],
                name=data["name"],
                pod_template=form.pod_template(),
                with_replicaset=data["with_replicaset"],
            )
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            pods = sum(1 for row in created if row.kind == "Pod")
            return _respond(request, scenario, actor, ok=True, notice=f"{pods} pods of {data['name']} added.")
    return _respond(request, scenario, actor, ok=False, bound={"pod_batch": form})


def _import_yaml(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = YamlImportForm(request.POST, request.FILES, prefix="import")
    if form.is_valid():
        data = form.cleaned_data
        try:
            result = scenario_import_any(scenario=scenario, actor=actor, text=data["yaml"], source=data["source"])
        except ScenarioInvalid as error:
            form.add_error(None, error.message)
        else:
            if result.is_cluster_dump:  # say what was kept, created and dropped, and why
                if not _is_htmx(request):
                    for line in result.lines:
                        messages.info(request, line)
                return _respond(request, scenario, actor, ok=True, notice=result.notice(),
                                import_summary=result.lines, warnings=result.not_simulated)
            return _respond(request, scenario, actor, ok=True, notice=f"Imported {data['source']}: all objects replaced.",
                            warnings=result.not_simulated)
    return _respond(request, scenario, actor, ok=False, bound={"import": form})


def _delete_scenario(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    scenario_service.scenario_delete(scenario=scenario, actor=actor)
    messages.success(request, f"Scenario {scenario.name} deleted.")
    if _is_htmx(request):
        return HttpResponseClientRedirect(reverse("playground:scenarios"))
    return redirect("playground:scenarios")


_ACTIONS = {
    "save_object": _save_object,
    "delete_object": _delete_object,
    "save_config": _save_config,
    "update_details": _update_details,
    "bulk_nodes": _bulk_nodes,
    "pod_batch": _pod_batch,
    "import_yaml": _import_yaml,
    "delete_scenario": _delete_scenario,
}
