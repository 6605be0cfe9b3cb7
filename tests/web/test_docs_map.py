"""docs/architecture.md and docs/plugins.md: every project path they name exists, and /docs/
lists and renders both (a map with a wrong turn is worse than none)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
PREFIXES = ("playground/", "scheduler_core/", "templates/", "static/", "config/", "tests/", "examples/",
            "docs/", "bench/")


def _paths(doc: str) -> list[str]:
    found = []
    for code in re.findall(r"`([^`\n]+)`", (ROOT / doc).read_text()):
        token = code.split(":")[0].split(" ")[0]
        if token.startswith(PREFIXES):
            found.append(token.rstrip("/"))
    return found


def _exists(path: str) -> bool:
    """A path, a glob (`gallery/*.yaml`: at least one match) or a pattern with a placeholder
    (`plugins/<name>/`: the folder holding the placeholder exists and has such subfolders)."""
    if "<" in path:
        parent = ROOT / path.split("<")[0]
        return parent.is_dir() and any(c.is_dir() for c in parent.iterdir())
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@pytest.mark.parametrize("doc", ["docs/architecture.md", "docs/plugins.md"])
def test_every_path_named_exists(doc: str) -> None:
    paths = _paths(doc)
    assert len(paths) > (40 if doc == "docs/architecture.md" else 5)
    missing = [p for p in paths if not _exists(p)]
    assert missing == []


def test_every_partial_named_exists() -> None:
    text = (ROOT / "docs/architecture.md").read_text()
    partials = set(re.findall(r"`([a-z_]+\.html)`", text))
    assert {"live_update.html", "refresh.html", "detail.html"} <= partials
    templates = {p.name for p in (ROOT / "templates/playground/runs").rglob("*.html")}
    assert partials - templates == set()


def test_docs_index_links_both() -> None:
    client = Client()
    index = client.get("/docs/").content.decode()
    assert 'href="/docs/architecture/"' in index and 'href="/docs/plugins/"' in index
    page = client.get("/docs/architecture/").content.decode()
    assert "The event stream&#x27;s contract" in page or "The event stream's contract" in page
    assert "NodeResourcesAllocatable" in client.get("/docs/plugins/").content.decode()
