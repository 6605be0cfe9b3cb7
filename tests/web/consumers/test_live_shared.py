"""Live updates rendered once per run state and audience, and a live log that never skips events
silently (a gap marker that loads the rest in place). Real Redis channel layer, real worker body."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.consumers import live_render
from playground.consumers.runs import RESYNC_BURST, RunConsumer
from playground.models import Run, RunAction
from playground.ownership import Actor
from playground.selectors.runs import LOG_LIMIT
from tests.web.call_async import call_async
from tests.web.services.runs.test_runs_scale_views import big_run  # noqa: F401  (fixture)
from tests.web.services.runs.test_runs_services import OWNER, act, inline_worker  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

SEQ = re.compile(r'id="ev-(\d+)"')
GAP = re.compile(r'hx-get="([^"]+)"[^>]*hx-target="#log-gap-')


def viewer(run: Run, actor: Actor, seen: int = 0) -> RunConsumer:
    consumer = RunConsumer()
    consumer.run_id, consumer.seen, consumer.step, consumer.cycle = run.pk, seen, None, None
    consumer.rendered, consumer.actor, consumer.resyncs = None, actor, []
    return consumer


@pytest.fixture
def count_screens(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = live_render.run_screen

    def counted(**kwargs: Any) -> Any:
        calls.append(1)
        return real(**kwargs)

    monkeypatch.setattr(live_render, "run_screen", counted)
    return calls


def test_panels_are_rendered_once_per_state_and_audience(
    big_run: Run,  # noqa: F811
    count_screens: list[int],
) -> None:
    readers = [viewer(big_run, Actor(session_token=f"reader-{i}")) for i in range(5)]
    owner = viewer(big_run, OWNER)
    pages = [c.render(hello=True, since=0.0) for c in readers]
    assert len(count_screens) == 1  # five read-only viewers, one rendering
    owner_page = owner.render(hello=True, since=0.0)
    assert len(count_screens) == 2  # the owner's audience has its own
    assert len(set(pages)) == 1 and 'id="run-status"' in pages[0] and 'id="run-seen"' in pages[0]
    assert 'id="run-status"' in owner_page
    # Nothing changed: a viewer's next notification sends nothing and renders nothing.
    assert readers[0].render(hello=False, since=0.0) == ""
    assert len(count_screens) == 2
    # A step: every viewer gets the new state, rendered once more per audience.
    act(big_run, RunAction.KIND_STEP)
    notified = time.monotonic()  # when the consumers learn of the step
    after = [c.render(hello=False, since=notified) for c in readers + [owner]]
    assert len(count_screens) == 4
    assert all(f'<strong id="run-step">{big_run.head_step}</strong>' in html for html in after)


@pytest.mark.django_db(transaction=True)  # the consumer reads through its own connection
def test_a_resync_message_resends_without_rendering_and_is_rate_limited(
    big_run: Run,  # noqa: F811
    count_screens: list[int],
) -> None:
    reader = viewer(big_run, Actor(session_token="reader"))
    sent: list[str] = []

    async def send(text_data: str) -> None:
        sent.append(text_data)

    reader.send = send  # type: ignore[method-assign]
    for _ in range(RESYNC_BURST + 5):
        call_async(reader.receive, text_data='{"seen": 0, "step": "", "cycle": ""}')
    assert len(count_screens) == 1  # the first re-sync rendered; the rest re-sent the same bytes
    assert len(sent) == RESYNC_BURST  # beyond the burst, re-syncs are ignored
    assert len(set(sent)) == 1


def test_live_log_marks_and_loads_what_it_did_not_carry(client: Client, big_run: Run) -> None:  # noqa: F811
    while big_run.last_seq <= 2 * LOG_LIMIT + 10:  # more events than two updates carry
        act(big_run, RunAction.KIND_STEP)
    reader = viewer(big_run, Actor(session_token="reader"))
    html = reader.render(hello=True, since=0.0)
    total = big_run.events.filter(seq__lte=reader.seen).count()
    assert total > LOG_LIMIT, "the run must have more events than one update carries"
    shown = [int(s) for s in SEQ.findall(html)]
    assert len(shown) == LOG_LIMIT and shown == sorted(shown)
    assert f"{total - LOG_LIMIT} more events" in html and "load them" in html
    # Follow the "load them" links until the log is complete: every event once, in order.
    loaded: list[int] = []
    pending = GAP.findall(html)
    while pending:
        response = client.get(pending.pop(0).replace("&amp;", "&"))
        assert response.status_code == 200
        page = response.content.decode()
        loaded += [int(s) for s in SEQ.findall(page)]
        pending += GAP.findall(page)
    assert loaded + shown == sorted(big_run.events.filter(seq__lte=reader.seen).values_list("seq", flat=True))


def test_gap_link_is_bounded_to_the_run(client: Client, big_run: Run) -> None:  # noqa: F811
    url = reverse("playground:run_log_gap", args=[big_run.share_token])
    page = client.get(url, {"after": "-5", "upto": "999999999"}).content.decode()
    seqs = [int(s) for s in SEQ.findall(page)]
    assert len(seqs) == min(LOG_LIMIT, big_run.last_seq) and seqs[0] == 1
    assert client.get(url, {"after": "x", "upto": "y"}).status_code == 200


def test_a_queued_action_resends_the_status_line_only(
    big_run: Run,  # noqa: F811
    count_screens: list[int],
) -> None:
    """The "N actions queued" moment changes the status line, not the panels: they are not
    rendered again, and a viewer that has them is sent the status line alone."""
    reader = viewer(big_run, Actor(session_token="reader"))
    first = reader.render(hello=True, since=0.0)
    assert 'id="run-status"' in first
    RunAction.objects.create(run=big_run, index=big_run.actions.count() + 1, kind=RunAction.KIND_STEP)
    queued = reader.render(hello=False, since=time.monotonic())
    assert len(count_screens) == 1  # the Screen was reused
    assert 'id="run-queued"' in queued
    assert len(queued) < len(first) / 2  # the panels were not sent again


def test_a_rendered_update_reaches_other_viewers_without_the_database(
    big_run: Run,  # noqa: F811
    django_assert_num_queries: Any,
) -> None:
    """A hundred viewers of one run: the first renders (in the database thread); the others are
    served from memory in the event loop, with no query."""
    readers = [viewer(big_run, Actor(session_token=f"reader-{i}")) for i in range(3)]
    for reader in readers:  # each viewer knows its audience after its first (hello) update
        reader.render(hello=True, since=0.0)
    act(big_run, RunAction.KIND_STEP)
    notified = time.monotonic()
    assert readers[1].render_cached(hello=False, since=notified) is None  # nothing rendered yet
    html = readers[0].render(hello=False, since=notified)
    with django_assert_num_queries(0):
        fast = readers[1].render_cached(hello=False, since=notified)
    assert fast is not None and f'<strong id="run-step">{big_run.head_step}</strong>' in fast
    assert fast == html.replace(f'value="{readers[0].seen}"', f'value="{readers[1].seen}"')


@pytest.mark.django_db(transaction=True)  # the consumer reads through its own connection
def test_overlapping_pushes_of_one_page_send_each_event_once(
    big_run: Run,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A notification's push and the timer's re-check may overlap on one page. The second must
    not read the page's `seen` while the first, in the database thread, has made the update (and
    cached it for every viewer) but not yet advanced it: the rows would go out twice."""
    import asyncio

    page = viewer(big_run, Actor(session_token="reader"))
    page.render(hello=True, since=0.0)
    act(big_run, RunAction.KIND_STEP)
    real = live_render.viewer_part

    def slow(update: Any, **kwargs: Any) -> Any:
        part = real(update, **kwargs)  # made (its rows memoized for every viewer at this place)...
        if not kwargs.get("memo_only"):
            time.sleep(0.3)  # ...but this page's `seen` not yet advanced
        return part

    monkeypatch.setattr(live_render, "viewer_part", slow)
    sent: list[str] = []

    async def send(text_data: str) -> None:
        sent.append(text_data)

    page.send = send  # type: ignore[method-assign]

    async def both() -> None:
        notified = time.monotonic()

        async def later() -> None:
            await asyncio.sleep(0.1)
            await page.push(since=notified)

        await asyncio.gather(page.push(since=notified), later())

    call_async(both)
    seqs = [int(s) for html in sent for s in SEQ.findall(html)]
    assert seqs, "the step's events were sent"
    assert len(seqs) == len(set(seqs)) and seqs == sorted(seqs)


def _update(nodes: int) -> live_render.SharedUpdate:
    from types import SimpleNamespace

    screen = SimpleNamespace(view={"nodes": [{}] * nodes, "pods": []})
    return live_render.SharedUpdate(state=(), panels_state=(), status_html="", panels_html="", screen=screen,  # type: ignore[arg-type]
                                    built_at=0.0, render_seconds=0.0, has_lesson=False)


def test_a_class_of_runs_keeps_every_rendering_and_big_ones_are_bounded_by_weight() -> None:
    """Forty runs watched at once (a class, the teacher's run in two audiences, a big play) keep
    their renderings: a student's "queued" push and its result reuse the Screen instead of
    rendering every panel again. Renderings of big clusters are dropped by weight."""
    live_render.forget()
    try:
        for run_id in range(40):
            with live_render._lock:
                live_render._keep((run_id, True), _update(300))
        assert all(live_render.cached_update(run_id, True, since=0.0) is not None for run_id in range(40))
        with live_render._lock:
            live_render._keep((1000, True), _update(live_render.MAX_WEIGHT - 5_000))
        assert live_render.cached_update(1000, True, since=0.0) is not None  # the newest is kept
        assert live_render.cached_update(0, True, since=0.0) is None  # the oldest went for its weight
        assert sum(live_render._weights.values()) <= live_render.MAX_WEIGHT
        with live_render._lock:
            live_render._keep((2000, True), _update(live_render.MAX_WEIGHT * 2))
        assert list(live_render._table) == [(2000, True)]  # alone over the bound: still kept
    finally:
        live_render.forget()


def test_a_pages_database_work_does_not_wait_behind_another_pages() -> None:
    """Channels ran every consumer's database call on one thread per process: one big run's
    render held every other page's push. The consumers' calls now run on a pool: a quick call
    completes while a slow one is still running (the slow one waits for the quick one here, so
    on a single thread this would stall until the quick call's deadline)."""
    import asyncio
    import threading

    from playground.consumers.db import CONSUMER_DB_THREADS, consumer_db

    assert CONSUMER_DB_THREADS >= 2

    async def both() -> tuple[bool, str]:
        release = threading.Event()
        slow = asyncio.ensure_future(consumer_db(lambda: release.wait(timeout=20))())
        await asyncio.sleep(0.05)  # the slow call holds its thread

        def quick() -> str:
            release.set()
            return "quick"

        answer = await asyncio.wait_for(consumer_db(quick)(), timeout=10)
        return await slow, answer

    assert asyncio.run(both()) == (True, "quick")


@pytest.mark.django_db(transaction=True)  # the threads read through their own connections
def test_viewers_asking_at_once_on_several_threads_share_one_rendering(
    big_run: Run,  # noqa: F811
    count_screens: list[int],
) -> None:
    """The consumers' database work runs on several threads: viewers of one run that ask for
    the same new state at once wait for one rendering instead of each making their own."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    reader = Actor(session_token="reader")
    live_render.shared_update(big_run.pk, reader, None, 0.0)  # the audience is known from here on
    before = len(count_screens)
    act(big_run, RunAction.KIND_STEP)
    notified = time.monotonic()

    def ask(_: int) -> Any:
        try:
            return live_render.shared_update(big_run.pk, reader, False, notified)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=6) as pool:
        updates = list(pool.map(ask, range(6)))
    assert len(count_screens) == before + 1  # one rendering of the new state, shared by all six
    assert all(u is updates[0] for u in updates)
    assert f'<strong id="run-step">{big_run.head_step}</strong>' in updates[0].status_html


@pytest.mark.django_db(transaction=True)
def test_a_pool_thread_keeps_its_sqlite_connection_until_an_error_or_its_age(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every push opened the SQLite file again (Channels closes connections around each call);
    a pool thread now keeps its connection, but not after an error nor past KEEP_SECONDS."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from playground.consumers import db

    if connection.vendor != "sqlite":
        pytest.skip("the kept connection is SQLite's")
    monkeypatch.setattr(db, "_pool", ThreadPoolExecutor(max_workers=1))

    def used() -> Any:
        Run.objects.exists()
        return connection.connection  # the objects themselves: ids of freed ones can repeat

    def failing() -> None:
        Run.objects.exists()
        connection.errors_occurred = True

    async def calls() -> list[Any]:
        first = await db.consumer_db(used)()
        second = await db.consumer_db(used)()
        await db.consumer_db(failing)()
        third = await db.consumer_db(used)()
        monkeypatch.setattr(db, "KEEP_SECONDS", -1.0)
        fourth = await db.consumer_db(used)()
        return [first, second, third, fourth]

    first, second, third, fourth = call_async(calls)
    assert first is second  # kept
    assert third is not second  # closed after the error
    assert fourth is not third  # closed once older than KEEP_SECONDS


@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_sees_what_others_committed_after_a_read_left_unfinished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kept connection must not stay inside an old read snapshot: a query whose rows were not
    all read (the frame rebuild stops at a keyframe) ends its read transaction, and the next call
    on that thread sees what another connection committed since."""
    from concurrent.futures import ThreadPoolExecutor
    from datetime import timedelta

    from asgiref.sync import sync_to_async
    from django.contrib.sessions.models import Session
    from django.db import connection
    from django.utils import timezone

    from playground.consumers import db

    if connection.vendor != "sqlite":
        pytest.skip("the kept connection is SQLite's")
    monkeypatch.setattr(db, "_pool", ThreadPoolExecutor(max_workers=1))  # one thread: one kept connection
    expire = timezone.now() + timedelta(days=1)
    Session.objects.bulk_create(Session(session_key=f"k{i:03}", session_data="", expire_date=expire) for i in range(40))

    def partly() -> int:
        for seen, _ in enumerate(Session.objects.order_by("session_key").values_list("session_key").iterator(chunk_size=8)):
            if seen == 2:
                break
        return Session.objects.count()

    async def calls() -> tuple[int, int]:
        before = await db.consumer_db(partly)()
        await sync_to_async(lambda: Session.objects.filter(session_key="k000").delete(), thread_sensitive=False)()
        after = await db.consumer_db(Session.objects.count)()
        return before, after

    assert call_async(calls) == (40, 39)


@pytest.mark.parametrize("acting", [False, True])
def test_a_playing_runs_page_is_updated_less_often_while_a_class_is_acting(
    monkeypatch: pytest.MonkeyPatch, acting: bool
) -> None:
    """A play's pushes are paced by their render cost: a quarter of a core at most, a tenth
    while other clients' actions are coming in (their steps' pages come first)."""

    from playground.consumers import runs as consumer_module
    from playground.services.runs import dispatch

    monkeypatch.setattr(dispatch, "interactive_recently", lambda: acting)
    monkeypatch.setattr(consumer_module, "_acting_seen", [-1.0, 0.0])
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def push(**_: Any) -> None:
        return None

    monkeypatch.setattr(consumer_module.asyncio, "sleep", sleep)
    viewer = RunConsumer()
    viewer.playing, viewer.render_seconds, viewer.last_push = True, 0.1, time.monotonic()
    viewer.push = push  # type: ignore[method-assign]
    call_async(viewer.run_updated, {})
    expected = 0.1 / (consumer_module.PLAY_RENDER_SHARE_BUSY if acting else consumer_module.PLAY_RENDER_SHARE)
    assert len(waits) == 1 and expected - 0.05 < waits[0] <= expected


@pytest.mark.django_db(transaction=True)  # the consumers read through their own connections
def test_viewers_pushing_at_once_in_one_process_share_one_database_job(
    big_run: Run,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A step reaches every viewer of a run at once: one of the process's consumers renders it on
    a database thread (with the event-log rows they share), the others wait for that job and are
    answered from memory. Each one queued its own job before, ahead of other pages' pushes."""
    import asyncio

    from playground.consumers import runs as consumers

    readers = [viewer(big_run, Actor(session_token=f"reader-{i}")) for i in range(6)]
    for reader in readers:
        reader.render(hello=True, since=0.0)  # each knows its audience and `seen` from here on
    sent: dict[int, list[str]] = {i: [] for i in range(len(readers))}
    for i, reader in enumerate(readers):

        async def send(text_data: str, i: int = i) -> None:
            sent[i].append(text_data)

        reader.send = send  # type: ignore[method-assign]
    jobs: list[str] = []
    real_shared, real_render = consumers._render_shared, RunConsumer.render

    def shared(*args: Any) -> None:
        jobs.append("shared")
        real_shared(*args)

    def own(self: RunConsumer, *args: Any, **kwargs: Any) -> str:
        jobs.append("own")
        return real_render(self, *args, **kwargs)

    monkeypatch.setattr(consumers, "_render_shared", shared)
    monkeypatch.setattr(RunConsumer, "render", own)
    act(big_run, RunAction.KIND_STEP)

    async def notify_all() -> None:
        notified = time.monotonic()
        await asyncio.gather(*(reader.push(since=notified) for reader in readers))

    call_async(notify_all)
    assert jobs == ["shared"]
    step = f'<strong id="run-step">{big_run.head_step}</strong>'
    assert all(len(pages) == 1 and step in pages[0] for pages in sent.values())
    rows = {tuple(SEQ.findall(pages[0])) for pages in sent.values()}
    assert len(rows) == 1 and next(iter(rows))  # the same new event-log rows for each


def test_viewers_at_the_same_seen_share_one_rendering_of_their_part(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hundred viewers of one run at the same `seen` get the same message: their own part is
    rendered once per (seen, hello, panels), unless the run has a lesson (answers are each
    viewer's own)."""
    from dataclasses import dataclass, field, replace

    @dataclass
    class _Screen:
        shown_seq: int
        run: Any
        view: dict = field(default_factory=dict)
        answers: dict = field(default_factory=dict)

    rendered: list[str] = []
    monkeypatch.setattr(live_render, "render_to_string", lambda name, context: rendered.append(name) or f"<{context['seen']}>")
    screen = _Screen(shown_seq=4, run=None)
    update = live_render.SharedUpdate(state=(), panels_state=(), status_html="S", panels_html="P", screen=screen,  # type: ignore[arg-type]
                                      built_at=0.0, render_seconds=0.0, has_lesson=False)
    update.log_memo[(2, 4)] = "<rows>"
    first = live_render.viewer_part(update, seen=2, answers=None, hello=False)
    assert first == ("<4>SP<rows>", 4)
    assert [live_render.viewer_part(update, seen=2, answers=None, hello=False) for _ in range(99)] == [first] * 99
    assert rendered == [live_render.VIEWER_TEMPLATE]
    assert live_render.viewer_part(update, seen=2, answers=None, hello=True, panels=False) == ("<4>S<rows>", 4)
    assert len(rendered) == 2

    lesson = replace(update, has_lesson=True, part_memo={})
    live_render.viewer_part(lesson, seen=2, answers={"1": "a"}, hello=False)
    live_render.viewer_part(lesson, seen=2, answers={"1": "b"}, hello=False)
    assert len(rendered) == 4
