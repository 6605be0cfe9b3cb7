"""The run page's panels are listed once (playground/presenters/runs/panels.py): a throwaway panel
added by the steps docs/architecture.md gives ("A run-page panel") is on the page, in a live
viewer's update and in a classroom follower's update, over real websockets (the consumer in this
process, the real Redis channel layer); a paged one also answers at its URL and is sent live as
a refresh marker while it is large."""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client
from django.urls import clear_url_caches, reverse

from config.asgi import application
from playground.consumers import live_render
from playground.models import Run, Scenario
from playground.ownership import SESSION_KEY
from playground.presenters.runs import panels
from playground.presenters.runs.panels import Paged, Panel
from playground.presenters.runs.screen import Screen
from playground.services import classroom, gallery
from playground.services.runs.actions import run_start
from tests.web.call_async import call_async
from tests.web.services.runs.test_runs_services import OWNER

pytestmark = [pytest.mark.usefixtures("channel_layer"), pytest.mark.django_db(transaction=True)]

# Step 2 of the recipe: a partial with a stable id, swapped out of band in live updates.
PARTIAL = (
    '<section id="run-throwaway" class="panel"{% if oob %} hx-swap-oob="true"{% endif %}>'
    '<h2>Throwaway</h2><p id="throwaway-text">{{ screen.throwaway }}</p></section>'
)


def throwaway(screen: Screen) -> str:
    """Step 1 of the recipe: a presenter that reads the view and returns plain data."""
    return f"{len(screen.view.get('pods', []))} pods at step {screen.step}"


@pytest.fixture(autouse=True)
def _redis(redis_url: str, settings: Any) -> None:
    """The classroom's presenter step is kept in the test's Redis."""
    settings.REDIS_URL = redis_url


@pytest.fixture
def partials(tmp_path: Path, settings: Any) -> Path:
    """A template directory of the test's own, searched before the project's."""
    directory = tmp_path / "playground/runs/partials"
    directory.mkdir(parents=True)
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [tmp_path, *templates[0].get("DIRS", [])]
    settings.TEMPLATES = templates
    return directory


@pytest.fixture
def registered(partials: Path) -> Iterator[Panel]:
    """Steps 2 and 3: the partial, and one entry in the registry (removed afterwards)."""
    (partials / "throwaway.html").write_text(PARTIAL)
    panel = panels.REGISTRY.register(
        Panel("throwaway", "Throwaway", "throwaway.html", "left", 345, presenter=throwaway)
    )
    live_render.forget()
    yield panel
    panels.REGISTRY.unregister("throwaway")
    live_render.forget()


def _urls() -> None:
    """Build the URL patterns again from the registry (a paged panel registered after startup)."""
    import playground.urls

    importlib.reload(playground.urls)
    importlib.reload(importlib.import_module(django_settings.ROOT_URLCONF))  # its include() keeps the old list
    clear_url_caches()


@pytest.fixture
def paged(partials: Path) -> Iterator[Panel]:
    """A paged throwaway panel: its body at /runs/<token>/throwaway/, a marker live while large."""
    (partials / "throwaway.html").write_text(PARTIAL)
    (partials / "throwaway_body.html").write_text('<p id="throwaway-page">{{ text }} q={{ screen.params.q }}</p>')
    panel = panels.REGISTRY.register(
        Panel(
            "throwaway", "Throwaway", "throwaway.html", "bottom", 515, presenter=throwaway,
            paged=Paged("throwaway", "run_throwaway", "throwaway_body.html", lambda s: {"text": s.throwaway},
                        when=lambda s: s.step == 0),
        )
    )
    _urls()
    live_render.forget()
    yield panel
    panels.REGISTRY.unregister("throwaway")
    _urls()
    live_render.forget()


def _run() -> Run:
    gallery.seed()
    return run_start(scenario=Scenario.objects.get(gallery_slug="priority-preemption"), actor=OWNER)


def _owner_client() -> Client:
    client = Client()
    session = client.session
    session[SESSION_KEY] = OWNER.session_token
    session.save()
    return client


def _first_update(token: str, query: str = "") -> str:
    """What a page's socket is sent when it opens (its run-sync form says which `seen` it has)."""

    async def scenario() -> str:
        socket = WebsocketCommunicator(
            application, f"/ws/runs/{token}/?seen=0{query}",
            headers=[(b"host", b"localhost"), (b"origin", b"http://localhost")],
        )
        connected, _ = await socket.connect(timeout=10)
        assert connected
        await socket.send_to(text_data=json.dumps({"seen": "0", "step": ""}))
        message = await socket.receive_from(timeout=30)
        await socket.disconnect()
        return message

    return call_async(scenario)


def test_a_registered_panel_is_on_the_page_and_in_every_live_update(registered: Panel) -> None:
    run = _run()
    page = _owner_client().get(f"/runs/{run.share_token}/").content.decode()
    text = "6 pods at step 0"
    assert f'<p id="throwaway-text">{text}</p>' in page
    # Its order puts it in the grid's left column, after "Waiting at Permit", before the inspector.
    assert page.index('id="run-waiting"') < page.index('id="run-throwaway"') < page.index('id="run-inspector"')

    live = _first_update(run.share_token)
    assert '<section id="run-throwaway" class="panel" hx-swap-oob="true">' in live and text in live

    classroom.publish(run.pk, 0)  # a presenter at step 0: followers render live_update.html
    follower = _first_update(run.share_token, "&follow=1")
    assert 'id="follow-bar"' in follower  # the follower's own update, not a live viewer's
    assert '<section id="run-throwaway" class="panel" hx-swap-oob="true">' in follower and text in follower


def test_the_registry_drives_the_screen(registered: Panel) -> None:
    """Step 3 alone gives Screen the presenter's property (cached per screen), and takes it away."""
    assert isinstance(vars(Screen)["throwaway"], cached_property)
    panels.REGISTRY.unregister("throwaway")
    assert "throwaway" not in vars(Screen)
    panels.REGISTRY.register(registered)  # the fixture removes it again


def test_a_registered_paged_panel_answers_at_its_url_and_is_a_marker_while_large(paged: Panel) -> None:
    run = _run()
    client = _owner_client()
    url = reverse("playground:run_throwaway", args=[run.share_token])
    assert url == f"/runs/{run.share_token}/throwaway/"
    body = client.get(url, {"q": "web"}).content.decode()
    assert body == '<p id="throwaway-page">6 pods at step 0 q=web</p>'
    page = client.get(f"/runs/{run.share_token}/").content.decode()
    assert '<span id="throwaway-refresh" hidden></span>' in page and 'id="throwaway-text"' in page

    live = _first_update(run.share_token)  # large (step 0): the page is told to fetch it
    assert f'<span id="throwaway-refresh" hx-swap-oob="true"><span hx-get="{url}"' in live
    assert 'id="run-throwaway"' not in live


def test_a_panel_is_checked_when_registered(registered: Panel) -> None:
    with pytest.raises(ValueError, match="'throwaway' is already registered"):
        panels.REGISTRY.register(registered)
    with pytest.raises(ValueError, match="place 'side' is not one of"):
        Panel("other", "Other", "other.html", "side", 1)
    with pytest.raises(ValueError, match="Screen already has 'queues'"):
        panels.REGISTRY.register(Panel("queues-again", "Q", "q.html", "left", 1, presenter=throwaway, attr="queues"))
    assert "queues-again" not in panels.REGISTRY.panels
