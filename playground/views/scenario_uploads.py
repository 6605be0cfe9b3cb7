"""A big upload's "checking" page: the scenario text a request did not load itself.

services.scenario_uploads keeps an upload whose load would take seconds and has a worker check
it; this page says "checking" meanwhile (htmx polls it, or the page refreshes itself without
JavaScript), then leads to the scenario (or the YAML view's page that was edited), with the
load's notes shown there once, or shows the loader's located error.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect

from playground.models import ScenarioUpload
from playground.ownership import actor_for_request
from playground.presenters.load_warnings import NEWER_TAG, REFERENCE_TAG
from playground.selectors.scenario_uploads import upload_of
from playground.views.scenario_answers import UPLOAD_NOTES, detail_url, flash_not_simulated, is_htmx, upload_url

_WHERE_LABELS = (("document", "Document"), ("kind", "Kind"), ("name", "Object"), ("field", "Field"))


@require_GET
def scenario_upload(request: HttpRequest, token: str) -> HttpResponse:
    """A big upload's page (services.scenario_uploads): "checking" while a worker loads it (htmx
    polls it twice a second, since the wait after the check is part of a create's time and a
    poll is one row read; without JavaScript the page refreshes itself), then the scenario (a
    redirect, with the load's notes shown there once) or the loader's located error."""
    upload = upload_of(token=token, actor=actor_for_request(request))
    if upload.status == ScenarioUpload.DONE and upload.scenario is not None:
        # The scenario page shows what the load said once (_upload_notes), as after a small one.
        target = detail_url(upload.scenario)
        if upload.operation != ScenarioUpload.DOCUMENTS:
            shown = dict(request.session.get(UPLOAD_NOTES, {}))
            shown[str(upload.scenario_id)] = upload.token
            request.session[UPLOAD_NOTES] = dict(list(shown.items())[-5:])
        if upload.operation == ScenarioUpload.DOCUMENTS:  # the YAML view shows flashed messages
            notices = upload.notices or {}
            if notices.get("notice"):
                messages.success(request, notices["notice"])
                flash_not_simulated(request, notices.get("not_simulated") or [])
                for line in notices.get("references") or ():
                    messages.warning(request, line, extra_tags=REFERENCE_TAG)
                for line in notices.get("newer") or ():
                    messages.warning(request, line, extra_tags=NEWER_TAG)
                ScenarioUpload.objects.filter(pk=upload.pk).update(notices={})  # shown once
            target = f"{reverse('playground:scenario_yaml', args=[upload.scenario.share_token])}?page={upload.params.get('page', 1)}"
        return HttpResponseClientRedirect(target) if is_htmx(request) else redirect(target)
    where = [(label, (upload.error_where or {}).get(key)) for key, label in _WHERE_LABELS]
    context = {"upload": upload, "upload_url": upload_url(upload), "where": [(k, v) for k, v in where if v]}
    if is_htmx(request):
        return render(request, "playground/scenarios/partials/upload_status.html", context)
    return render(request, "playground/scenarios/upload.html", context)
