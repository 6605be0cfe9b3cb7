"""Scenario pages: the list (mine + gallery) and the editor, each one view with its actions.

Following django-htmx-patterns, a page's view also handles the page's actions (POST with an
``action`` field). htmx requests get back the fragment that changed (the editor, or one form);
plain form posts get a redirect or the whole page, so everything also works without htmx.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
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
from playground.limits import request_too_large, too_large
from playground.manifests import identity
from playground.models import ScenarioUpload
from playground.ownership import actor_for_request, can_edit, ensure_can_edit
from playground.presenters.load_warnings import (
    NEWER_TAG,
    NOT_SIMULATED_TAG,
    REFERENCE_TAG,
    newer_lines,
    not_simulated_lines,
    reference_lines,
)
from playground.presenters.scenarios.editor import (
    ALL_PARTS,
    SECTION_SLUGS,
    editor_context,
    object_form,
    page_url,
    parts_html,
)
from playground.presenters.scenarios.listing import SECTIONS, listing
from playground.presenters.scenarios.yaml_view import page_of_object, page_of_position, yaml_page
from playground.selectors.runs import runs_of_scenario
from playground.selectors.scenario_uploads import upload_of
from playground.selectors.scenarios import (
    gallery_scenario_by_slug,
    gallery_scenarios,
    iter_scenario_yaml,
    scenario_by_share_token,
    scenario_object,
    scenarios_owned_by,
)
from playground.services import lesson_progress, scenario_uploads
from playground.services import scenarios as scenario_service
from playground.services.cluster_import import scenario_import_any
from playground.services.scenarios import ScenarioInvalid
from playground.views import read_cache


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
                return redirect(_upload_url(upload))
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
                _flash_references(request, scenario.not_simulated)
                return redirect(_detail_url(scenario))
    context = {
        "mine": scenarios_owned_by(actor=actor),
        "gallery": gallery_scenarios(),
        "form": form,
    }
    return render(request, "playground/scenarios/list.html", context, status=400 if form.errors else 200)


def _detail_url(scenario: Any) -> str:
    return reverse("playground:scenario", args=[scenario.share_token])


def _upload_url(upload: ScenarioUpload) -> str:
    return reverse("playground:scenario_upload", args=[upload.token])


_WHERE_LABELS = (("document", "Document"), ("kind", "Kind"), ("name", "Object"), ("field", "Field"))


@require_GET
def scenario_upload(request: HttpRequest, token: str) -> HttpResponse:
    """A big upload's page (services.scenario_uploads): "checking" while a worker loads it (htmx
    polls it every second; without JavaScript the page refreshes itself), then the scenario (a
    redirect, with the load's notes shown there once) or the loader's located error."""
    upload = upload_of(token=token, actor=actor_for_request(request))
    if upload.status == ScenarioUpload.DONE and upload.scenario is not None:
        # The scenario page shows what the load said once (_upload_notes), as after a small one.
        target = _detail_url(upload.scenario)
        if upload.operation != ScenarioUpload.DOCUMENTS:
            shown = dict(request.session.get(_UPLOAD_NOTES, {}))
            shown[str(upload.scenario_id)] = upload.token
            request.session[_UPLOAD_NOTES] = dict(list(shown.items())[-5:])
        if upload.operation == ScenarioUpload.DOCUMENTS:  # the YAML view shows flashed messages
            notices = upload.notices or {}
            if notices.get("notice"):
                messages.success(request, notices["notice"])
                _flash_not_simulated(request, notices.get("not_simulated") or [])
                for line in notices.get("references") or ():
                    messages.warning(request, line, extra_tags=REFERENCE_TAG)
                for line in notices.get("newer") or ():
                    messages.warning(request, line, extra_tags=NEWER_TAG)
                ScenarioUpload.objects.filter(pk=upload.pk).update(notices={})  # shown once
            target = f"{reverse('playground:scenario_yaml', args=[upload.scenario.share_token])}?page={upload.params.get('page', 1)}"
        return HttpResponseClientRedirect(target) if _is_htmx(request) else redirect(target)
    where = [(label, (upload.error_where or {}).get(key)) for key, label in _WHERE_LABELS]
    context = {"upload": upload, "upload_url": _upload_url(upload), "where": [(k, v) for k, v in where if v]}
    if _is_htmx(request):
        return render(request, "playground/scenarios/partials/upload_status.html", context)
    return render(request, "playground/scenarios/upload.html", context)


@require_GET
def gallery_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A stable address for a built-in scenario (its share token differs per database); the
    learning path's cards link here, so opening one is recorded in the learner's session."""
    scenario = gallery_scenario_by_slug(slug=slug)
    lesson_progress.lesson_opened(request.session, slug)
    return redirect(_detail_url(scenario))


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


# ---- the editor ------------------------------------------------------------------------------------

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
    if not _is_htmx(request):
        if ok:
            if notice:
                messages.success(request, notice)
            _flash_not_simulated(request, lines)
            _flash_references(request, warnings)
            return redirect(_detail_url(scenario))
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


def _flash_not_simulated(request: HttpRequest, lines: list[str]) -> None:
    for line in lines:
        messages.warning(request, line, extra_tags=NOT_SIMULATED_TAG)


def _flash_references(request: HttpRequest, warnings: Any) -> None:
    """The loader's reference warnings (an object named that the scenario lacks), one each."""
    for line in reference_lines(warnings):
        messages.warning(request, line, extra_tags=REFERENCE_TAG)
    for line in newer_lines(warnings):  # kinds and fields of v1.36/v1.37 clusters
        messages.warning(request, line, extra_tags=NEWER_TAG)


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
        notes = _upload_notes(request, scenario, actor)
        return render(request, "playground/scenarios/detail.html", editor_context(request, scenario, actor, **notes))

    if can_edit(scenario=scenario, actor=actor) or runs_of_scenario(scenario=scenario, actor=actor, limit=1):
        return page()
    objects = scenario.kube_objects.aggregate(n=Count("pk"), last=Max("pk"))
    key = read_cache.cache_key(
        "scenario",
        (scenario.pk, scenario.share_token, scenario.updated_at, objects["n"], objects["last"], request.get_host(),
         request.get_full_path(), _is_htmx(request)),
    )
    return read_cache.serve(request, key, page)


_UPLOAD_NOTES = "scenario_upload_notes"  # session: scenario id -> the upload whose notes it shows next


def _upload_notes(request: HttpRequest, scenario: Any, actor: Any) -> dict[str, Any]:
    """What a big upload's load said, shown once on the scenario page its "checking" page led to
    (services.scenario_uploads), to its uploader: the lines a small upload's answer shows (the
    import summary, the fields not simulated, missing references)."""
    shown = request.session.get(_UPLOAD_NOTES) or {}
    token = shown.get(str(scenario.pk))
    if not token or not can_edit(scenario=scenario, actor=actor):
        return {}
    request.session[_UPLOAD_NOTES] = {key: value for key, value in shown.items() if key != str(scenario.pk)}
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
            return _to_upload(request, upload)
        try:
            saved = scenario_service.scenario_object_save(
                scenario=scenario, actor=actor, manifest=manifest, object_id=obj.pk if obj else None
            )
        except ScenarioInvalid as error:
            form.add_scenario_error(error)
        else:
            shown = f"{saved.namespace}/{saved.name}" if saved.namespace else saved.name
            return _respond(request, scenario, actor, ok=True, notice=f"{kind} {shown} saved.", warnings=saved.not_simulated,
                            kind=kind)
    return _respond(request, scenario, actor, ok=False, bound={kind: form}, editing={kind: obj}, kind=kind)


def _to_upload(request: HttpRequest, upload: ScenarioUpload) -> HttpResponse:
    """Answer with the upload's "checking" page (htmx: HX-Redirect there, a whole-page visit)."""
    url = _upload_url(upload)
    return HttpResponseClientRedirect(url) if _is_htmx(request) else redirect(url)


def _delete_object(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    obj = scenario_object(scenario=scenario, object_id=request.POST.get("object_id"))
    if obj is None:
        return HttpResponseBadRequest("Which object?")
    if scenario_uploads.scenario_needs_worker(scenario):  # the rest is validated by a load: a worker's
        return _to_upload(request, scenario_uploads.object_later(actor=actor, scenario=scenario, kind=obj.kind,
                                                                 label=str(obj), object_id=obj.pk, delete=True))
    try:
        scenario_service.scenario_object_delete(scenario=scenario, actor=actor, object_id=obj.pk)
    except ScenarioInvalid as error:
        return _respond(request, scenario, actor, ok=False, error=f"Cannot delete {obj}: {error.message}")
    return _respond(request, scenario, actor, ok=True, notice=f"{obj} deleted.", kind=obj.kind)


def _save_config(request: HttpRequest, scenario: Any, actor: Any) -> HttpResponse:
    form = SchedulerConfigForm(request.POST, prefix="config")
    if form.is_valid():
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return _to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="config", label="the scheduler configuration",
                args={"config": form.cleaned_data["config"]}))
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
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return _to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="nodes", label=f"{data['count']} new nodes",
                args={"count": data["count"], "prefix": data["prefix"], "zones": data["zones"],
                      "template": dataclasses.asdict(form.template())}))
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
        if scenario_uploads.scenario_needs_worker(scenario):  # validated by loading it all: a worker's
            return _to_upload(request, scenario_uploads.edit_later(
                actor=actor, scenario=scenario, change="pods", label=f"{data['count']} pods of {data['name']}",
                args={"count": data["count"], "name": data["name"], "pod_template": form.pod_template(),
                      "with_replicaset": data["with_replicaset"]}))
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
        if scenario_uploads.needs_worker(data["yaml"], importing=True):  # seconds of loading: a worker's
            upload = scenario_uploads.upload_later(actor=actor, operation=ScenarioUpload.IMPORT, text=data["yaml"],
                                                   source=data["source"], scenario=scenario)
            url = _upload_url(upload)
            return HttpResponseClientRedirect(url) if _is_htmx(request) else redirect(url)
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


# ---- the object lists and the YAML view ----------------------------------------------------------


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
                return redirect(_upload_url(upload))
            saved = scenario_service.scenario_documents_replace(
                scenario=scenario, actor=actor, first=first, count=count, text=text,
                source=f"documents {first + 1}-{first + count}",
            )
        except ScenarioInvalid as error:
            context.update(error=error.message, edited_text=text)
            status = 400
        else:
            messages.success(request, f"Documents {first + 1}–{first + count} saved ({saved} now).")
            _flash_not_simulated(request, not_simulated_lines(getattr(scenario, "not_simulated", ())))
            _flash_references(request, getattr(scenario, "not_simulated", ()))
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
