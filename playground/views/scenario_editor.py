"""The scenario editor page: the editor for its owner, read-only for everyone else with the
link, with all its actions and its paged object lists.

Following django-htmx-patterns, the page's view also handles the page's actions (POST with an
``action`` field: save or delete an object, the scheduler configuration, the details, the bulk
forms, an import, fork, delete). htmx requests get back the parts of the page that changed
(presenters.scenarios.editor), swapped in out of band; plain form posts get a redirect or the
whole page, so everything also works without htmx. An edit that needs the whole big scenario
loaded again goes to a worker (services.scenario_uploads) and its "checking" page.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from playground.forms import (
    FORM_BY_KIND,
    BulkNodesForm,
    PodBatchForm,
    ScenarioDetailsForm,
    SchedulerConfigForm,
    YamlImportForm,
)
from playground.limits import request_too_large, too_large
from playground.manifests import identity
from playground.models import ScenarioUpload
from playground.ownership import actor_for_request, can_edit, ensure_can_edit
from playground.presenters.load_warnings import newer_lines, not_simulated_lines, reference_lines
from playground.presenters.scenarios.editor import (
    ALL_PARTS,
    SECTION_SLUGS,
    editor_context,
    object_form,
    page_url,
    parts_html,
)
from playground.presenters.scenarios.listing import SECTIONS, listing
from playground.selectors.runs import runs_of_scenario
from playground.selectors.scenario_uploads import upload_of
from playground.selectors.scenarios import scenario_by_share_token, scenario_object
from playground.services import scenario_bulk, scenario_uploads
from playground.services import scenario_objects as object_service
from playground.services import scenarios as scenario_service
from playground.services.cluster_import import scenario_import_any
from playground.services.scenario_validation import ScenarioInvalid
from playground.views import read_cache
from playground.views.scenario_answers import (
    UPLOAD_NOTES,
    detail_url,
    flash_not_simulated,
    flash_references,
    is_htmx,
    to_upload,
    upload_url,
)

# What each action changes on the page (see presenters.scenarios.editor): its answer to htmx
# holds these parts only. `{kind}` is the edited object's section.
_CHANGED = {
    "save_object": ("messages", "heading", "section:{kind}", "yaml"),
    "delete_object": ("messages", "heading", "section:{kind}", "yaml"),
    "save_config": ("messages", "config", "yaml"),
    "update_details": ("messages", "heading", "details"),
    "bulk_nodes": ("messages", "heading", "section:node", "bulk", "yaml"),
    "pod_batch": ("messages", "heading", "section:pod", "other", "bulk", "yaml"),
    "import_yaml": ALL_PARTS,
}
# ...and when it is refused: the message and the form that was sent.
_REFUSED = {
    "save_object": ("messages", "section:{kind}"),
    "delete_object": ("messages",),
    "save_config": ("messages", "config"),
    "update_details": ("messages", "details"),
    "bulk_nodes": ("messages", "bulk"),
    "pod_batch": ("messages", "bulk"),
    "import_yaml": ("messages", "yaml"),
}


def _parts(request: HttpRequest, ok: bool, kind: str = "") -> tuple[str, ...]:
    action = request.POST.get("action", "")
    chosen = (_CHANGED if ok else _REFUSED).get(action, ("messages",))
    slug = kind.lower() if kind.lower() in SECTION_SLUGS else "other"
    return tuple(part.replace("{kind}", slug) for part in chosen)


def _respond(
    request: HttpRequest, scenario: Any, actor: Any, *, ok: bool, notice: str = "", warnings: Any = (),
    kind: str = "", **context: Any,
) -> HttpResponse:
    """After an action: the parts of the page it changed (htmx, swapped in out-of-band), or a
    redirect / the whole page (plain post). `warnings` are the loader's LoadWarnings for what
    the action brought in, shown once as the "accepted but not simulated" list; `kind` the kind
    of the object the action was about (which list it changed)."""
    lines = not_simulated_lines(warnings)
    if not is_htmx(request):
        if ok:
            if notice:
                messages.success(request, notice)
            flash_not_simulated(request, lines)
            flash_references(request, warnings)
            return redirect(detail_url(scenario))
        return render(
            request,
            "playground/scenarios/detail.html",
            editor_context(request, scenario, actor, **context),
            status=400,
        )
    parts = _parts(request, ok, kind)
    if "messages" not in parts:
        parts = ("messages", *parts)
    page = editor_context(request, scenario, actor, parts=parts, notice=notice, **context)
    if lines:
        page["not_simulated"] = lines
    references = reference_lines(warnings)
    if references:
        page["references"] = references
    newer = newer_lines(warnings)
    if newer:
        page["newer"] = newer
    # htmx swaps 2xx only: answer errors with 200 so the form with its messages is shown.
    return HttpResponse(parts_html(request, page, parts))


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
        if is_htmx(request) and ("edit" in request.GET or "new" in request.GET):
            return _object_form_fragment(request, scenario, actor)
        return _read_only_or_render(request, scenario, actor)

    try:
        if request_too_large(request):
            raise RequestDataTooBig
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
        if is_htmx(request):
            return HttpResponseClientRedirect(detail_url(fork))
        return redirect(detail_url(fork))
    handler = _ACTIONS.get(action)
    if handler is None:
        return HttpResponseBadRequest("Unknown action")
    ensure_can_edit(scenario=scenario, actor=actor)
    return handler(request, scenario, actor)


def _read_only_or_render(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    """The scenario page; for a read-only viewer with no runs of it, from the read-only cache
    (keyed by what the page shows: any edit changes `updated_at` or the objects)."""

    def page() -> HttpResponse:
        notes = _upload_notes(request, scenario, actor)
        return render(request, "playground/scenarios/detail.html", editor_context(request, scenario, actor, **notes))

    if can_edit(scenario=scenario, actor=actor) or runs_of_scenario(scenario=scenario, actor=actor, limit=1):
        return page()
    objects = scenario.kube_objects.aggregate(n=Count("pk"), last=Max("pk"))
    key = read_cache.cache_key(
        "scenario",
        (scenario.pk, scenario.share_token, scenario.updated_at, objects["n"], objects["last"], request.get_host(),
         request.get_full_path(), is_htmx(request)),
    )
    return read_cache.serve(request, key, page)


def _upload_notes(request: HttpRequest, scenario: Any, actor: Any) -> dict[str, Any]:
    """What a big upload's load said, shown once on the scenario page its "checking" page led to
    (services.scenario_uploads), to its uploader: the lines a small upload's answer shows (the
    import summary, the fields not simulated, missing references)."""
    shown = request.session.get(UPLOAD_NOTES) or {}
    token = shown.get(str(scenario.pk))
    if not token or not can_edit(scenario=scenario, actor=actor):
        return {}
    request.session[UPLOAD_NOTES] = {key: value for key, value in shown.items() if key != str(scenario.pk)}
    try:
        upload = upload_of(token=token, actor=actor)
    except Http404:
        return {}
    if upload.scenario_id != scenario.pk or upload.status != ScenarioUpload.DONE:
        return {}
    notices = upload.notices or {}
    found = {"notice": notices.get("notice", "") or f"Created from {upload.source}.",
             "import_summary": notices.get("summary") or [], "not_simulated": notices.get("not_simulated") or [],
             "references": notices.get("references") or [], "newer": notices.get("newer") or []}
    return {key: value for key, value in found.items() if value}


def _object_form_fragment(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    if not can_edit(scenario=scenario, actor=actor):
        raise PermissionDenied("Only the owner can edit this scenario.")
    obj = scenario_object(scenario=scenario, object_id=request.GET.get("edit"))
    kind = obj.kind if obj is not None else request.GET.get("new", "")
    if kind not in FORM_BY_KIND:
        raise Http404("No form for that kind")
    section = dict(zip(("kind", "title"), next(s for s in SECTIONS if s[0] == kind), strict=True))
    section.update(slug=kind.lower(), form=object_form(kind, obj), editing=obj)
    return render(
        request,
        "playground/scenarios/partials/object_form.html",
        {"scenario": scenario, "section": section, "can_edit": True, "page_url": page_url(scenario)},
    )


def _save_object(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    kind = request.POST.get("kind", "")
    if kind not in FORM_BY_KIND:
        return HttpResponseBadRequest("Unknown kind")
    obj = scenario_object(scenario=scenario, object_id=request.POST.get("object_id"))
    form = object_form(kind, data=request.POST)
    if form.is_valid():
        manifest = form.to_manifest(obj.manifest if obj is not None else None)
        if scenario_uploads.scenario_needs_worker(scenario):  # the whole scenario is loaded again: a worker's
            _, namespace, name = identity(manifest)
            upload = scenario_uploads.object_later(actor=actor, scenario=scenario, kind=kind, manifest=manifest,
                                                   label=f"{namespace}/{name}" if namespace else name,
                                                   object_id=obj.pk if obj else None)
            return to_upload(request, upload)
        try:
            saved = object_service.scenario_object_save(
                scenario=scenario, actor=actor, manifest=manifest, object_id=obj.pk if obj else None
            )
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            shown = f"{saved.namespace}/{saved.name}" if saved.namespace else saved.name
            return _respond(request, scenario, actor, ok=True, notice=f"{kind} {shown} saved.", warnings=saved.not_simulated,
                            kind=kind)
    return _respond(request, scenario, actor, ok=False, bound={kind: form}, editing={kind: obj}, kind=kind)


def _delete_object(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    obj = scenario_object(scenario=scenario, object_id=request.POST.get("object_id"))
    if obj is None:
        return HttpResponseBadRequest("Which object?")
    if scenario_uploads.scenario_needs_worker(scenario):  # the rest is validated by a load: a worker's
        return to_upload(request, scenario_uploads.object_later(actor=actor, scenario=scenario, kind=obj.kind,
                                                                 label=str(obj), object_id=obj.pk, delete=True))
    try:
        object_service.scenario_object_delete(scenario=scenario, actor=actor, object_id=obj.pk)
    except ScenarioInvalid as error:
        return _respond(request, scenario, actor, ok=False, error=f"Cannot delete {obj}: {error.message}")
    return _respond(request, scenario, actor, ok=True, notice=f"{obj} deleted.", kind=obj.kind)


def _save_config(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = SchedulerConfigForm(request.POST, prefix="config")
    if form.is_valid():
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="config", label="the scheduler configuration",
                args={"config": form.cleaned_data["config"]}))
        try:
            object_service.scenario_config_save(scenario=scenario, actor=actor, config=form.cleaned_data["config"])
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
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="nodes", label=f"{data['count']} new nodes",
                args={"count": data["count"], "prefix": data["prefix"], "zones": data["zones"],
                      "template": dataclasses.asdict(form.template())}))
        try:
            created = scenario_bulk.scenario_nodes_add_bulk(
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
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="pods", label=f"{data['count']} pods of {data['name']}",
                args={"count": data["count"], "name": data["name"], "pod_template": form.pod_template(),
                      "with_replicaset": data["with_replicaset"]}))
        try:
            created = scenario_bulk.scenario_pods_add_batch(
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
        if scenario_uploads.needs_worker(data["yaml"], importing=True):  # seconds of loading: a worker's
            upload = scenario_uploads.upload_later(actor=actor, operation=ScenarioUpload.IMPORT, text=data["yaml"],
                                                   source=data["source"], scenario=scenario)
            url = upload_url(upload)
            return HttpResponseClientRedirect(url) if is_htmx(request) else redirect(url)
        try:
            result = scenario_import_any(scenario=scenario, actor=actor, text=data["yaml"], source=data["source"])
        except ScenarioInvalid as error:
            form.add_error(None, error.message)
        else:
            if result.is_cluster_dump:  # say what was kept, created and dropped, and why
                if not is_htmx(request):
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
    if is_htmx(request):
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


@require_GET
def scenario_objects(request: HttpRequest, token: str, section: str) -> HttpResponse:
    """One page of one of the editor's lists (`?q=` name search, `?page=`), for htmx to swap in."""
    scenario = scenario_by_share_token(token=token)
    if section not in (*SECTION_SLUGS, "other"):
        raise Http404("No such list")
    actor = actor_for_request(request)
    context = {
        "scenario": scenario,
        "listing": listing(scenario, section, request.GET),
        "can_edit": can_edit(scenario=scenario, actor=actor),
        "page_url": page_url(scenario),
    }
    return render(request, "playground/scenarios/partials/object_list.html", context)
