"""The project's documentation, in the app: README.md and docs/*.md rendered from the files
themselves, so the app and the repository never disagree. Only the listed files are served."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]

# slug -> (file, title, what it is for)
PAGES: dict[str, tuple[str, str, str]] = {
    "readme": ("README.md", "Overview", "what the playground is, how to run it, its settings and layout"),
    "lessons": ("docs/lessons.md", "Lesson documents", "write a guided tour (predict, then reveal) for a scenario"),
    "challenges": ("docs/challenges.md", "Challenge documents", "goals a run must meet: build, run, pass or fail"),
    "timeline": ("docs/timeline.md", "Timeline documents", "change the cluster while a run plays"),
    "admission": ("docs/admission.md", "Admission", "what the API server adds to a pod before the scheduler sees it"),
    "descheduler": ("docs/descheduler.md", "The descheduler", "DeschedulerPolicy: rebalance a running cluster by evicting pods"),
    "versions": ("docs/versions.md", "Kubernetes versions", "which versions a run can model and what differs"),
    "async-edges": ("docs/async-edges.md", "Asynchronous edges", "upstream's timers and goroutines on the virtual clock"),
    "architecture": ("docs/architecture.md", "Architecture", "how a scenario travels from upload to browser, and where new code goes"),
    "plugins": ("docs/plugins.md", "Writing a plugin", "your own scheduler plugin: the API, loading it, a worked example"),
    "metrics": ("docs/metrics.md", "Metrics", "kube-scheduler's metrics of a run, its charts, and the operator's /metrics"),
    "reliability": ("docs/reliability.md", "Reliability and security", "what was tried against the app, and what held"),
    "storage": ("docs/storage.md", "Storage", "volumes, claims, storage classes and the volume plugins in a run"),
    "dra": ("docs/dra.md", "Dynamic Resource Allocation", "devices: DeviceClasses, ResourceSlices, claims and DynamicResources"),
    "feature-gates": ("docs/feature-gates.md", "Feature gates", "setting a run's gates, which are simulated, gang scheduling"),
}


@lru_cache(maxsize=len(PAGES))
def _html(path: str, mtime: float) -> str:
    """The file's Markdown as HTML. Raw HTML in the file is escaped (html off), links are
    validated by markdown-it (no javascript: URLs)."""
    del mtime  # part of the cache key: an edited file is rendered again
    return MarkdownIt("commonmark", {"html": False}).enable("table").render((ROOT / path).read_text())


@require_GET
def docs_index(request: HttpRequest) -> HttpResponse:
    pages = [{"slug": slug, "title": title, "about": about} for slug, (_, title, about) in PAGES.items()]
    return render(request, "playground/docs/index.html", {"pages": pages})


@require_GET
def docs_page(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in PAGES:
        raise Http404("no such page")
    path, title, _ = PAGES[slug]
    body = _html(path, (ROOT / path).stat().st_mtime)
    return render(request, "playground/docs/page.html", {"title": title, "body": mark_safe(body), "slug": slug})  # noqa: S308 - markdown-it escapes raw HTML
