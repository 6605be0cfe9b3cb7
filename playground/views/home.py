"""The home page: where to start. The learning path's chapters, the learner's progress (kept in
their session) and the lesson to do next."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.presenters.learning_path import learning_path
from playground.selectors.gallery import cached_gallery_entries
from playground.selectors.lesson_progress import progress_of


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    path = learning_path(cached_gallery_entries(), progress_of(request.session))
    return render(request, "playground/home/index.html", {"path": path})
