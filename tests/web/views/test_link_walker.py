"""Every link answers: each page kind (home, scenario list, gallery, scenario, run, run metrics,
docs index and every doc page, "Reading an older article?", challenge builder and results) is
fetched, and every in-app link on it (`<a href>`, its #anchor included) must answer 200; README.md
and docs/*.md must name only files that exist (relative Markdown links) and in-app addresses that
answer 200 (a `<token>` / `<id>` placeholder is filled with a real run's or scenario's token).

External links (another host) are not fetched: the test must not need the network.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from django.test import Client

from playground.models import RunAction
from playground.ownership import SESSION_KEY
from playground.services import gallery
from playground.services.runs import actions as svc
from playground.services.scenarios import scenario_create
from playground.views.docs import PAGES
from tests.web.compare_here import run_compare_tasks_here
from tests.web.services.runs.test_runs_services import OWNER, act, gallery_scenario, inline_worker  # noqa: F401

ROOT = Path(__file__).resolve().parents[3]
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
APP_PATH = re.compile(r"`(/(?:docs|gallery|scenarios|runs|diagnostics|metrics|admin)[^`\s]*)`")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"] or "")
        if tag == "a" and found.get("href"):
            self.hrefs.append(found["href"] or "")


def _parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


class Walker:
    """Fetches pages through the test client, once each, and remembers what failed and where."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.pages: dict[str, tuple[int, _Links]] = {}
        self.broken: list[tuple[str, str, str]] = []  # (page, link, why)

    def get(self, path: str) -> tuple[int, _Links]:
        if path not in self.pages:
            response = self.client.get(path, follow=True)
            body = response.content.decode(errors="replace") if "html" in response.get("Content-Type", "") else ""
            self.pages[path] = (response.status_code, _parse(body))
        return self.pages[path]

    def walk(self, page: str) -> None:
        status, links = self.get(page)
        assert status == 200, (page, status)
        for href in links.hrefs:
            self.check(page, href, links)

    def check(self, page: str, href: str, links: _Links) -> None:
        if href.startswith(("mailto:", "javascript:")):
            return
        url = urljoin("http://testserver" + page, href)
        parts = urlsplit(url)
        if parts.netloc != "testserver":
            return  # another host: not fetched
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if href.startswith("#"):
            target = links
        else:
            status, target = self.get(path)
            if status != 200:
                self.broken.append((page, href, str(status)))
                return
        if parts.fragment and parts.fragment not in target.ids and not href.startswith("#cycle-"):
            self.broken.append((page, href, "no such anchor"))


@pytest.fixture
def tokens(
    client: Client, inline_worker: list, settings: Any, monkeypatch: pytest.MonkeyPatch, redis_url: str  # noqa: F811
) -> dict[str, str]:
    """A played run of resource-fit (its page has step, cycle and export links), a scenario of
    the owner's own with a challenge, and the client signed in as that owner. The compare pages
    they link are computed by a worker's task: here its body runs in this process, so those
    links answer with the comparison (and its own links are walked too)."""
    run_compare_tasks_here(monkeypatch, settings, redis_url)
    settings.METRICS_PUBLIC = True
    settings.DIAGNOSTICS_PUBLIC = True
    settings.PLAYGROUND_READS_PER_SECOND = 0  # the walk reads far faster than a person: not limited
    gallery.seed()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    run = svc.run_start(scenario=gallery_scenario("resource-fit"), actor=OWNER)
    act(run, RunAction.KIND_PLAY)
    own = scenario_create(actor=OWNER, name="mine", yaml_text=(ROOT / "playground/gallery/challenge-one-victim.yaml").read_text())
    run.refresh_from_db()
    fork = svc.run_fork(run=run, actor=OWNER, step=run.head_step)  # `/runs/<token>/compare/` is a fork's page
    return {"run": run.share_token, "scenario": own.share_token, "fork": fork.share_token}


def _page_kinds(tokens: dict[str, str]) -> list[str]:
    run, scenario = tokens["run"], tokens["scenario"]
    return [
        "/", "/scenarios/", "/gallery/resource-fit/", f"/scenarios/{scenario}/", f"/runs/{run}/",
        f"/runs/{run}/?cycle=2", f"/runs/{run}/metrics/", "/docs/", "/docs/then-and-now/",
        *[f"/docs/{slug}/" for slug in PAGES],
        f"/scenarios/{scenario}/challenge/", f"/scenarios/{scenario}/challenge/results/",
    ]


@pytest.mark.django_db
def test_every_link_of_every_page_kind_answers(client: Client, tokens: dict[str, str]) -> None:
    walker = Walker(client)
    for page in _page_kinds(tokens):
        walker.walk(page)
    assert walker.broken == []
    assert len(walker.pages) > 60  # the walk really went through the pages' links


@pytest.mark.django_db
def test_the_docs_pages_readme_and_lessons_point_to_exist(client: Client) -> None:
    for slug in ("storage", "dra", "feature-gates"):
        response = client.get(f"/docs/{slug}/")
        assert response.status_code == 200, slug
    index = client.get("/docs/").content.decode()
    assert all(f'href="/docs/{slug}/"' in index for slug in ("storage", "dra", "feature-gates"))
    readme = client.get("/docs/readme/").content.decode()
    assert '<a href="/docs/storage/"><code>docs/storage.md</code></a>' in readme


def _placeholders(path: str, tokens: dict[str, str]) -> str:
    path = re.sub(r"/runs/<[^>]+>/compare/", f"/runs/{tokens['fork']}/compare/", path)
    path = re.sub(r"/runs/<[^>]+>/", f"/runs/{tokens['run']}/", path)
    path = re.sub(r"=N\b", "=1", path)  # `?seed=N`, `?step=N`
    return re.sub(r"/scenarios/<[^>]+>/", f"/scenarios/{tokens['scenario']}/", path)


@pytest.mark.django_db
@pytest.mark.parametrize("doc", MARKDOWN, ids=[p.name for p in MARKDOWN])
def test_every_link_and_address_of_the_markdown_answers(doc: Path, client: Client, tokens: dict[str, str]) -> None:
    text = doc.read_text()
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if urlsplit(target).scheme:
            continue
        file = target.split("#")[0]
        if file and not (doc.parent / file).exists():
            broken.append(target)
    for path in APP_PATH.findall(text):
        path = _placeholders(path.rstrip(".,"), tokens)
        if "<" in path or "{" in path or "*" in path:
            continue
        if client.get(path, follow=True).status_code != 200:
            broken.append(path)
    assert broken == []
