"""The home page: where to start (the gallery, in teaching order)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.services.gallery import gallery_entries


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    entries = sorted(gallery_entries(), key=lambda e: (e.order, e.slug))
    return render(request, "playground/home/index.html", {"lessons": entries})
