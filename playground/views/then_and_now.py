"""The "Reading an older article?" page (playground/then_and_now.py holds its content)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from playground import then_and_now
from scheduler_core.api import newer_versions


def target_url(entry: then_and_now.Entry) -> str:
    """Where an entry sends the reader: its gallery scenario, a section of this page, or a page."""
    if entry.gallery:
        return reverse("playground:gallery", args=[entry.gallery])
    name, *args = entry.page
    if name == "then_and_now_section":
        return reverse("playground:then_and_now") + "#" + args[0]
    return reverse(f"playground:{name}", args=args)


@require_GET
def then_and_now_page(request: HttpRequest) -> HttpResponse:
    articles = [
        {**group, "sections": [(section, [{"entry": e, "url": target_url(e)} for e in entries])
                               for section, entries in group["sections"]]}
        for group in then_and_now.grouped()
    ]
    return render(request, "playground/docs/then_and_now.html", {
        "articles": articles,
        "predicates": then_and_now.PREDICATES,
        "priorities": then_and_now.PRIORITIES,
        # "What changed since v1.35": scheduler changes of v1.36 and v1.37 (facts: newer_versions).
        "since_v135": newer_versions.CHANGES,
        "newer_kinds": newer_versions.NEWER_KINDS,
        "newer_gates": newer_versions.NEWER_GATES,
        "simulated_version": newer_versions.SIMULATED_VERSION,
    })
