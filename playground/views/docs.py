"""The project's documentation, in the app: README.md and docs/*.md rendered from the files
themselves, so the app and the repository never disagree. Only the listed files are served."""

from __future__ import annotations

import re
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
    "newer-clusters": ("docs/newer-clusters.md", "Clusters newer than v1.35", "v1.36/v1.37 dumps: what loads, what is noted, what changed"),
    "capacity": ("docs/capacity.md", "How many more fit?", "copies of a pod placed one by one until the scheduler stops them"),
    "why-pending": ("docs/why-pending.md", "Why pending", "a run's pending pods grouped by why the scheduler failed them"),
}


_SLUG_OF_FILE = {file: slug for slug, (file, _, _) in PAGES.items()}
# A file the app serves, named in code (`docs/storage.md`, `README.md`) or as a Markdown link.
_CODE_FILE = re.compile(r"<code>((?:docs/)?[a-z-]+\.md|README\.md)</code>")
_LINK_FILE = re.compile(r'href="(?:\.\./|docs/)?([a-z-]+\.md|README\.md)(#[^"]*)?"')
# An address of the app named in code, without a placeholder (`/docs/then-and-now/`, `/scenarios/`).
_CODE_PATH = re.compile(r"<code>(/(?:docs|scenarios|diagnostics)/(?:[a-z0-9-]+/)*)</code>")


def _file_slug(name: str, page_file: str) -> str | None:
    """The slug of the served file `name` refers to from `page_file` (docs/*.md name each other
    without the folder; README.md names them with it)."""
    if name == "README.md":
        return "readme"
    if not name.startswith("docs/") and page_file.startswith("docs/"):
        name = "docs/" + name
    return _SLUG_OF_FILE.get(name)


def _link_files(html: str, page_file: str) -> str:
    """Links to the app's own pages for the files and addresses a page names, so a reader in the
    app follows `docs/storage.md` to /docs/storage/ instead of a path the app does not serve."""

    def code(m: re.Match[str]) -> str:
        slug = _file_slug(m.group(1), page_file)
        return f'<a href="/docs/{slug}/">{m.group(0)}</a>' if slug else m.group(0)

    def link(m: re.Match[str]) -> str:
        slug = _file_slug(m.group(1), page_file)
        return f'href="/docs/{slug}/{m.group(2) or ""}"' if slug else m.group(0)

    html = _LINK_FILE.sub(link, html)
    html = _CODE_FILE.sub(code, html)
    return _CODE_PATH.sub(lambda m: f'<a href="{m.group(1)}">{m.group(0)}</a>', html)


@lru_cache(maxsize=len(PAGES))
def _html(path: str, mtime: float) -> str:
    """The file's Markdown as HTML. Raw HTML in the file is escaped (html off), links are
    validated by markdown-it (no javascript: URLs); the files and addresses it names link to
    the app's pages."""
    del mtime  # part of the cache key: an edited file is rendered again
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render((ROOT / path).read_text())
    return _link_files(body, path)


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
