"""The gallery index (/gallery/): every lesson in its chapter, searchable and filtered by chapter
and progress through GET parameters. An htmx request (the form as one types) gets the results
alone; a plain GET the whole page, so the page works without JavaScript and each filtered list
has an address."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.forms.lesson_filter import LessonFilterForm
from playground.presenters.learning_path import learning_path
from playground.selectors.gallery import cached_gallery_entries
from playground.selectors.lesson_progress import progress_of


@require_GET
def gallery_index(request: HttpRequest) -> HttpResponse:
    form = LessonFilterForm(request.GET or None)
    filters = form.filters() if form.is_bound else {}
    path = learning_path(cached_gallery_entries(), progress_of(request.session), filters)
    context = {"path": path, "form": form, "filters": filters}
    status = 400 if form.is_bound and form.errors else 200
    if getattr(request, "htmx", False) and request.htmx.target == "lesson-results":
        return render(request, "playground/home/partials/results.html", context, status=status)
    return render(request, "playground/home/gallery.html", context, status=status)
