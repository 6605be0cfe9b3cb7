"""The learning path: home and /gallery/ as chapters of short cards, every gallery lesson in
exactly one chapter, search and filters as GET parameters, the learner's progress in their
session and the next lesson suggested."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from playground.chapters import CHAPTER_BY_SLUG, CHAPTERS
from playground.models import RunAction
from playground.selectors.gallery import gallery_entries
from playground.services import gallery
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

ENTRIES = gallery_entries()
SLUGS = {e.slug for e in ENTRIES}


def chapters_of(html: str) -> dict[str, list[str]]:
    """{chapter slug: [lesson slugs of its cards]} as the page shows them."""
    found: dict[str, list[str]] = {}
    for part in re.split(r'<section class="chapter[^"]*" id="chapter-', html)[1:]:
        slug = part.split('"', 1)[0]
        body = part.split("</section>", 1)[0]
        found[slug] = re.findall(r'<li class="lesson-(?:card|line)[^"]*" data-lesson="([^"]+)"', body)
    return found


def test_every_gallery_file_names_a_known_chapter_and_what_it_teaches() -> None:
    for entry in ENTRIES:
        assert entry.chapter in CHAPTER_BY_SLUG, (entry.slug, entry.chapter)
        assert 20 <= len(entry.teaches) <= 140, (entry.slug, entry.teaches)
    assert {e.chapter for e in ENTRIES} == {c.slug for c in CHAPTERS}  # no empty chapter


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/gallery/"])
def test_home_and_gallery_show_chapters_with_every_lesson_in_exactly_one(client: Client, url: str) -> None:
    html = client.get(url).content.decode()
    shown = chapters_of(html)
    assert list(shown) == [c.slug for c in CHAPTERS]  # in teaching order, each a real heading
    cards = [slug for slugs in shown.values() for slug in slugs]
    assert sorted(cards) == sorted(SLUGS)  # every lesson once, no other
    for chapter in CHAPTERS:
        assert f'<h2 id="chapter-{chapter.slug}-title">' in html
    by_slug = {e.slug: e for e in ENTRIES}
    for chapter, slugs in shown.items():
        assert all(by_slug[s].chapter == chapter for s in slugs)
    assert "explanation" not in html and not any(e.explanation[:60] in html for e in ENTRIES)


@pytest.mark.django_db
def test_search_and_filters_are_get_parameters_answered_with_the_results_alone_to_htmx(client: Client) -> None:
    html = client.get("/gallery/", {"q": "preemption victims"}).content.decode()
    cards = [s for slugs in chapters_of(html).values() for s in slugs]
    assert cards and all(
        all(w in f"{e.title} {e.teaches} {CHAPTER_BY_SLUG[e.chapter].title}".casefold() for w in ("preemption", "victims"))
        for e in ENTRIES if e.slug in cards
    )
    assert f"{len(cards)} of {len(ENTRIES)} lessons match" in html
    assert 'value="preemption victims"' in html  # the form keeps what was typed
    storage = client.get("/gallery/", {"chapter": "storage"}).content.decode()
    assert list(chapters_of(storage)) == ["storage"]
    assert sorted(chapters_of(storage)["storage"]) == sorted(e.slug for e in ENTRIES if e.chapter == "storage")
    partial = client.get("/gallery/", {"chapter": "devices"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="lesson-results")
    text = partial.content.decode()
    assert partial.status_code == 200 and text.lstrip().startswith('<div id="lesson-results"') and "<html" not in text
    assert list(chapters_of(text)) == ["devices"]
    none = client.get("/gallery/", {"q": "zzzz-no-such-lesson"}).content.decode()
    assert 'id="no-lessons"' in none and chapters_of(none) == {}
    # The inputs are labelled (the search is a real form: it works without JavaScript).
    for field in ("lesson-q", "lesson-chapter", "lesson-status"):
        assert f'<label for="{field}">' in html


@pytest.mark.django_db
def test_an_unknown_chapter_is_said_beside_its_field_and_filters_nothing(client: Client) -> None:
    response = client.get("/gallery/", {"chapter": "nope", "status": "weird"})
    html = response.content.decode()
    assert response.status_code == 400
    assert 'id="lesson-chapter-error"' in html and "chapter: Select a valid choice. nope" in html
    assert 'id="lesson-status-error"' in html
    assert sorted(s for slugs in chapters_of(html).values() for s in slugs) == sorted(SLUGS)


def _card(html: str, slug: str) -> str:
    match = re.search(rf'<li class="lesson-(?:card|line) ([^"]*)" data-lesson="{slug}">(.*?)</li>', html, re.S)
    assert match, slug
    return match.group(1) + " " + match.group(2)


@pytest.mark.django_db
def test_progress_is_kept_in_the_session_and_the_next_lesson_suggested(
    client: Client, inline_worker: list  # noqa: F811
) -> None:
    from playground.services.runs import actions as svc

    first = next(e for e in ENTRIES if e.chapter == CHAPTERS[0].slug)
    home = client.get("/").content.decode()
    assert f'id="next-lesson" data-lesson="{first.slug}"' in home and "Start here" in home
    assert f"0 of {len(ENTRIES)} lessons done" in home  # every gallery file is a lesson

    entry = next(e for e in ENTRIES if e.slug == "resource-fit")
    scenario = gallery.seed_entry(entry)
    assert client.get("/gallery/resource-fit/").status_code == 302  # opening the lesson
    assert client.session["learning_path"]["opened"] == ["resource-fit"]
    home = client.get("/").content.decode()
    assert 'id="next-lesson" data-lesson="resource-fit"' in home and "Continue" in home
    assert "status-started" in _card(home, "resource-fit") and "started" in _card(home, "resource-fit")

    run = svc.run_start(scenario=scenario, actor=OWNER)
    url = f"/runs/{run.share_token}/"
    client.post(url, {"action": "predict", "index": "1", "answer": "large"}, HTTP_HX_REQUEST="true")
    assert client.session["learning_path"]["answered"] == {"resource-fit": [1]}
    assert "1 answered" in _card(client.get("/").content.decode(), "resource-fit")

    act(run, RunAction.KIND_PLAY)  # to the end: no lesson stop is ahead any more
    client.get(url)
    assert client.session["learning_path"]["finished"] == ["resource-fit"]
    home = client.get("/").content.decode()
    assert "status-finished" in _card(home, "resource-fit") and f"1 of {len(ENTRIES)} lessons done" in home
    after = [e for e in ENTRIES if e.chapter == entry.chapter]
    following = after[[e.slug for e in after].index("resource-fit") + 1]
    assert f'id="next-lesson" data-lesson="{following.slug}"' in home  # the next one in the path
    finished = client.get("/gallery/", {"status": "finished"}).content.decode()
    assert chapters_of(finished) == {"filters-scores": ["resource-fit"]}
    fresh = Client().get("/").content.decode()  # another learner's progress is their own
    assert "status-finished" not in fresh and f'data-lesson="{first.slug}"' in fresh
