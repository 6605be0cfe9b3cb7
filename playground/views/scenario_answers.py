"""How the scenario pages answer an action: where they send the browser, and the loader's notes
they leave for the next page.

The scenario list, the editor, the YAML view and a big upload's "checking" page all end an
action the same way (a redirect to the scenario or to the upload's page, htmx or not, and the
"accepted but not simulated" / missing-reference / newer-version lines flashed once), so that
answer lives here once instead of in each page's view.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from playground.models import ScenarioUpload
from playground.presenters.load_warnings import (
    NEWER_TAG,
    NOT_SIMULATED_TAG,
    REFERENCE_TAG,
    newer_lines,
    reference_lines,
)

UPLOAD_NOTES = "scenario_upload_notes"  # session: scenario id -> the upload whose notes it shows next


def is_htmx(request: HttpRequest) -> bool:
    """Did htmx send it (answer with fragments), or a plain form post (answer with a page)?"""
    return bool(getattr(request, "htmx", False))


def detail_url(scenario: Any) -> str:
    """The scenario page's address (by share token: anyone with the link may read it)."""
    return reverse("playground:scenario", args=[scenario.share_token])


def upload_url(upload: ScenarioUpload) -> str:
    """A big upload's "checking" page, where a worker's verdict on it appears."""
    return reverse("playground:scenario_upload", args=[upload.token])


def flash_not_simulated(request: HttpRequest, lines: list[str]) -> None:
    """The "accepted but not simulated" lines, kept for the page a redirect leads to."""
    for line in lines:
        messages.warning(request, line, extra_tags=NOT_SIMULATED_TAG)


def flash_references(request: HttpRequest, warnings: Any) -> None:
    """The loader's reference warnings (an object named that the scenario lacks), one each."""
    for line in reference_lines(warnings):
        messages.warning(request, line, extra_tags=REFERENCE_TAG)
    for line in newer_lines(warnings):  # kinds and fields of v1.36/v1.37 clusters
        messages.warning(request, line, extra_tags=NEWER_TAG)


def to_upload(request: HttpRequest, upload: ScenarioUpload) -> HttpResponse:
    """Answer with the upload's "checking" page (htmx: HX-Redirect there, a whole-page visit)."""
    url = upload_url(upload)
    return HttpResponseClientRedirect(url) if is_htmx(request) else redirect(url)
