"""The "Reading an older article?" page (playground/then_and_now.py holds its content)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from playground import then_and_now


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
    })
