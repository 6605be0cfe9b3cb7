"""The run page's websocket: joins `run_<id>`, sends its viewer the run's fragments from the DB.

Protocol:
- connect `/ws/runs/<share_token>/?seen=<seq>[&step=<n>|&cycle=<n>]`; the page's sync form sends
  `{"seen": <last seq it shows>, "step": "", "cycle": ""}` (htmx `ws-send`) every time the socket
  opens, including after a reconnect.
- The consumer answers (and answers every `run.updated` notification the worker publishes after
  a commit) with out-of-band fragments: a live viewer gets the bounded panels at the run's head,
  a small "refresh" element for each searchable, paged part (the page then fetches it with its
  own query and page number) and the event-log rows after its `seen` (catch-up by sequence
  number, at most LOG_LIMIT rows; more than that: a "K more events — load them" marker that
  fills the gap in place); a viewer pinned to a step/cycle (a share link, history) gets
  only the "live is at step N" indicator. No message is over MAX_MESSAGE_BYTES; a send that fails
  is logged once per socket.
- A live viewer's panels are rendered once per run state and audience and shared by every
  consumer in this process (`live_render`); only the viewer's own part (seen marker, log rows
  after its seen, lesson answers) is its own. A re-sync message (`receive`) re-sends the cached
  panels, it never re-renders them, and re-syncs beyond RESYNC_BURST per RESYNC_WINDOW seconds
  are ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.exceptions import SynchronousOnlyOperation
from django.template.loader import render_to_string

from playground.consumers import live_render
from playground.consumers.db import consumer_db
from playground.groups import run_group
from playground.models import Run
from playground.monitoring.instruments import socket_closed, socket_opened
from playground.ownership import actor_for_scope
from playground.presenters.runs import lesson as lesson_panel
from playground.presenters.runs import run_screen
from playground.selectors import runs as run_selectors
from playground.services import classroom

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 * 1024  # no live update is bigger (the page's long lists are fetched, not pushed)
RESYNC_BURST = 5  # re-sync messages a socket may send per RESYNC_WINDOW seconds (the page sends one per open)
RESYNC_WINDOW = 10.0
PLAY_PUSH_INTERVAL = 0.3  # s between a playing run's pushes to one page (~3 a second)...
PLAY_RENDER_SHARE = 0.25  # ...or longer: a playing run's panels take at most this share of a core to render
PLAY_RENDER_SHARE_BUSY = 0.1  # ...and this share while other clients' actions are coming in
RECHECK_SECONDS = 5.0  # a page re-reads the run this often even without a notification
LEASE_CHECK_SECONDS = 0.25  # ...and looks whether a running action's worker is alive this often
RECHECK_FRESH = 1.0  # s: a timer's re-check reuses a rendering checked this recently
RECOVERY_EVERY = 2.0  # s: the timers of one process ask for a run's recovery at most this often


def _int(value: Any) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


_recovering_seen: dict[int, tuple[float, bool]] = {}  # run id -> (when looked, recovering)


def _recovering(run_id: int) -> bool:
    """Is the run's running action without a live worker? Looked up at most once per
    LEASE_CHECK_SECONDS per process, however many pages watch the run."""
    now = time.monotonic()
    seen = _recovering_seen.get(run_id)
    if seen is not None and now - seen[0] < LEASE_CHECK_SECONDS * 0.8:
        return seen[1]
    recovering = run_selectors.run_id_recovering(run_id=run_id)
    if len(_recovering_seen) > 1000:
        _recovering_seen.clear()
    _recovering_seen[run_id] = (now, recovering)
    return recovering


_acting_seen: list[float] = [-1.0, 0.0]  # when looked, and whether others were acting then


async def _others_acting() -> bool:
    """Are clients' actions coming in (any run's Step, Play or change in the last second:
    dispatch.interactive_recently)? Then a playing run's pages are updated less often, so that
    the web processes' CPU goes to the class's steps first (the worker's plays give way to
    them alike). Asked of Redis at most twice a second per process, off the event loop."""
    now = time.monotonic()
    if now - _acting_seen[0] >= 0.5:
        from playground.services.runs import dispatch

        _acting_seen[0] = now
        _acting_seen[1] = float(await asyncio.to_thread(dispatch.interactive_recently))
    return bool(_acting_seen[1])


_recovery_asked: dict[int, float] = {}  # run id -> when a timer of this process last asked


def _recovery_due(run_id: int) -> bool:
    """Should this timer ask for the run's recovery? Once per RECOVERY_EVERY per process."""
    now = time.monotonic()
    if now - _recovery_asked.get(run_id, -RECOVERY_EVERY) < RECOVERY_EVERY:
        return False
    if len(_recovery_asked) > 1000:
        _recovery_asked.clear()
    _recovery_asked[run_id] = now
    return True


_flights: dict[tuple[int, bool], tuple[float, asyncio.Future[Any]]] = {}  # (run, audience) -> (started, rendering)


def _render_shared(run_id: int, actor: Any, audience: bool, since: float, seen: int) -> None:
    update = live_render.shared_update(run_id, actor, audience, since)
    if update is not None and not update.has_lesson:
        live_render.log_rows_html(update, seen)  # the rows most viewers need next (they share a `seen`)


async def _shared_flight(run_id: int, actor: Any, audience: bool, since: float, seen: int) -> None:
    """Render run `run_id`'s live update for `audience` once for every consumer of this process
    that needs it at `since` or later (with the event-log rows after `seen`). Without this, a
    hundred viewers each queued a job on the consumers' database threads per step (all but one
    found the rendering done), and a student's own push waited behind them."""
    key = (run_id, audience)
    for _ in range(2):  # a rendering started before `since` may be stale: then one more after it
        flight = _flights.get(key)
        if flight is None or flight[1].done():
            started = time.monotonic()
            future = asyncio.ensure_future(consumer_db(_render_shared)(run_id, actor, audience, started, seen))
            _flights[key] = (started, future)
            flight = (started, future)
        with contextlib.suppress(Exception):  # the caller's own path reports a failure
            await asyncio.shield(flight[1])
        if flight[0] >= since:
            break
    if len(_flights) > 1000:
        for stale in [k for k, (_, f) in _flights.items() if f.done()]:
            del _flights[stale]


class RunConsumer(AsyncWebsocketConsumer):
    run_id: int | None = None
    group_name: str = ""
    following: bool = False  # a classroom follower: shown the presenter's step
    warned: bool = False
    audience: bool | None = None  # owner (True) or read-only (False); known after the first render
    playing: bool = False  # the run was playing at this viewer's last live render
    last_push: float = 0.0  # time.monotonic() of the last push
    rendered_panels: tuple[Any, ...] | None = None  # the panels' run state this viewer was last sent
    render_seconds: float = 0.0  # what the panels it was last sent took to render (CPU)

    async def connect(self) -> None:
        token = self.scope["url_route"]["kwargs"]["token"]
        self.run_id = await consumer_db(
            lambda: Run.objects.filter(share_token=token).values_list("pk", flat=True).first()
        )()
        if self.run_id is None:
            await self.close(code=4404)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.seen = _int(query.get("seen", [0])[0]) or 0
        self.step = _int(query.get("step", [None])[0])
        self.cycle = _int(query.get("cycle", [None])[0])
        self.following = query.get("follow", [""])[0] == "1"
        self.rendered: tuple[Any, ...] | None = None
        self.warned = False
        self.audience = None
        self.resyncs: list[float] = []
        self.actor = actor_for_scope(self.scope)
        self.group_name = run_group(self.run_id)
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()
        socket_opened(self, "run")
        self.rechecker = asyncio.ensure_future(self._recheck())

    async def _recheck(self) -> None:
        """A worker dying between its commit and its notification, or dying mid-play, must not
        leave this page on the old state: re-read on a timer, and have a stuck run re-queued.
        While the run has an action running, its worker's lease is looked at every
        LEASE_CHECK_SECONDS (one Redis EXISTS), so a dead worker shows "recovering" at once."""
        from playground.services.run_recovery import recover_run

        elapsed = 0.0
        while True:
            await asyncio.sleep(LEASE_CHECK_SECONDS)
            elapsed += LEASE_CHECK_SECONDS
            try:
                due = elapsed >= RECHECK_SECONDS
                stalled = False
                if not due and self.playing:
                    stalled = due = await consumer_db(_recovering)(self.run_id)
                if due:
                    elapsed = 0.0
                    # The re-queue is asked for first: a page that closes on reading "recovering"
                    # cancels this timer at its next await, and the run must not depend on it.
                    if _recovery_due(self.run_id):
                        await consumer_db(recover_run)(self.run_id)
                    # Then the page says "recovering". On the plain timer, a rendering this
                    # process checked against the database within RECHECK_FRESH seconds is fresh
                    # enough (a hundred viewers of one run re-check it once, not a hundred times).
                    await self.push(since=None if stalled else time.monotonic() - RECHECK_FRESH)
            except Exception:
                logger.warning("run %s: re-check failed", self.run_id, exc_info=True)

    async def disconnect(self, code: int) -> None:
        socket_closed(self)
        rechecker = getattr(self, "rechecker", None)
        if rechecker is not None:
            rechecker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await rechecker
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            data = json.loads(text_data or "{}")
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        now = time.monotonic()
        self.resyncs = [t for t in self.resyncs if now - t < RESYNC_WINDOW]
        if len(self.resyncs) >= RESYNC_BURST:
            return  # a flood of re-syncs: the page is already up to date or will be on the next step
        self.resyncs.append(now)
        self.seen = max(0, _int(data.get("seen")) or 0)
        self.step = _int(data.get("step"))
        self.cycle = _int(data.get("cycle"))
        self.rendered = None
        await self.push(hello=True)
        from playground.services.run_recovery import recover_run  # a (re)connecting page

        await consumer_db(recover_run)(self.run_id)

    def lesson_answers(self, token: str) -> dict[str, str]:
        """The viewer's lesson predictions, read afresh (they answer over HTTP, in their session)."""
        session = getattr(self, "scope", {}).get("session")
        key = getattr(session, "session_key", None)
        if not key:
            return {}
        from importlib import import_module

        from django.conf import settings

        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
        return lesson_panel.answers_for(store, token)

    async def classroom_step(self, event: dict[str, Any]) -> None:
        """The presenter moved: a follower's page follows."""
        if self.following:
            self.rendered = None
            await self.push()

    async def run_updated(self, event: dict[str, Any]) -> None:
        if self.playing:
            # Playing: at most one push per PLAY_PUSH_INTERVAL (longer for panels that
            # take long to render). Notifications that arrive in the
            # meantime wait in this consumer's queue and then find nothing new to send, so a page
            # coalesces steps instead of falling behind.
            share = PLAY_RENDER_SHARE_BUSY if await _others_acting() else PLAY_RENDER_SHARE
            interval = max(PLAY_PUSH_INTERVAL, self.render_seconds / share)
            wait = self.last_push + interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        await self.push(since=time.monotonic())

    async def push(self, hello: bool = False, since: float | None = None) -> None:
        """Send what changed. `since`: when this consumer learned of the change (a shared
        rendering built after it is fresh); None: re-check the run's state now.

        One push at a time per page: a notification's push and the timer's re-check may
        overlap, and each reads and advances this viewer's `seen` (the log rows it was sent);
        two at once would send the same rows twice, or out of order."""
        lock = self.__dict__.get("_push_lock")
        if lock is None:
            lock = self.__dict__["_push_lock"] = asyncio.Lock()
        async with lock:
            await self._push(hello, since)

    async def _push(self, hello: bool, since: float | None) -> None:
        if since is None:
            since = time.monotonic()
        html = self.render_cached(hello, since)
        if html is None and self.audience is not None and not self.following and not self.pinned:
            # Many viewers of one run learn of a step at once: one of them renders it on a
            # database thread, the others wait for that rendering and take it from memory.
            await _shared_flight(self.run_id, self.actor, self.audience, since, self.seen)
            html = self.render_cached(hello, since)
        if html is None:
            html = await consumer_db(self.render)(hello, since)
        if not html:
            return
        size = len(html.encode())
        if size > MAX_MESSAGE_BYTES:
            # The panels are bounded by design; if one still is not, say so instead of sending
            # a message the browser or the server would drop (and reconnect over, forever).
            self._warn_once(
                "run %s: a live update of %d bytes is over the %d-byte limit", self.run_id, size, MAX_MESSAGE_BYTES
            )
            html = render_to_string(
                "playground/runs/partials/socket_notice.html",
                {"text": f"This update ({size // 1024} KB) was too large to send live: reload the page to see it."},
            )
        try:
            await self.send(text_data=html)
        except Exception as error:  # the socket is going away: the page shows it is disconnected
            self._warn_once("run %s: a live update could not be sent (%s)", self.run_id, error)

    def _warn_once(self, message: str, *args: Any) -> None:
        if not self.warned:
            self.warned = True
            logger.warning(message, *args)

    @property
    def pinned(self) -> bool:
        return self.step is not None or self.cycle is not None

    def render(self, hello: bool, since: float = 0.0) -> str:
        if not self.following and not self.pinned:
            return self.render_live(hello, since)
        run = Run.objects.defer("scenario_yaml").filter(pk=self.run_id).first()
        if run is None:
            return ""
        led, presenter_at = classroom.presenter_step(run.pk) if self.following else (False, None)
        state = (*live_render.run_state(run), led, presenter_at)
        if state == self.rendered and not hello:
            return ""  # nothing changed since this viewer's last render
        self.rendered = state
        progress = run_selectors.run_progress(run=run)
        if led:  # a classroom follower: the presenter's step, every panel re-rendered in place
            screen = run_screen(
                run=run, actor=self.actor, step=presenter_at, answers=self.lesson_answers(run.share_token)
            )
            return render_to_string(
                "playground/runs/partials/live_update.html",
                {
                    "screen": screen,
                    "run": run,
                    "progress": progress,
                    "log": [],
                    "omitted": 0,
                    "seen": self.seen,
                    "oob": True,
                    "hello": hello,
                    "following": True,
                    "owner": screen.can_control,
                },
            )
        if self.pinned:
            return render_to_string(
                "playground/runs/partials/pinned_update.html", {"run": run, "progress": progress, "hello": hello}
            )
        screen = run_screen(run=run, actor=self.actor, answers=self.lesson_answers(run.share_token))
        log, omitted = run_selectors.log_rows(run=run, after_seq=self.seen, upto_seq=screen.shown_seq)
        if log:
            self.seen = log[-1]["seq"]
        return render_to_string(
            "playground/runs/partials/live_update.html",
            {
                "screen": screen,
                "run": run,
                "progress": progress,
                "log": log,
                "omitted": omitted,
                "seen": self.seen,
                "oob": True,
                "hello": hello,
            },
        )

    def render_cached(self, hello: bool, since: float) -> str | None:
        """A live viewer's update from this process's memory, in the event loop: when another
        viewer of the same run and audience already rendered it (a hundred viewers of one run
        then do not queue behind each other, and behind every page's database work, on the
        consumers' database threads). None: it needs the database (`render`)."""
        if self.following or self.pinned:
            return None
        update = live_render.cached_update(self.run_id, self.audience, since)
        if update is None or update.has_lesson:  # lesson answers are read from the session store
            return None
        try:
            return self._live_html(update, hello, None, memo_only=True)
        except SynchronousOnlyOperation:  # something wanted the database after all: the thread does it
            return None

    def render_live(self, hello: bool, since: float) -> str:
        """A live viewer: the shared panels of its audience plus its own part."""
        update = live_render.shared_update(self.run_id, self.actor, self.audience, since)
        if update is None:
            return ""
        answers = self.lesson_answers(update.screen.run.share_token) if update.has_lesson else None
        return self._live_html(update, hello, answers) or ""

    def _live_html(
        self, update: live_render.SharedUpdate, hello: bool, answers: dict[str, str] | None, memo_only: bool = False
    ) -> str | None:
        if update.state == self.rendered and not hello:
            self._saw(update)
            return ""  # nothing changed since this viewer's last update
        panels = hello or update.panels_state != self.rendered_panels
        part = live_render.viewer_part(
            update, seen=self.seen, answers=answers, hello=hello, panels=panels, memo_only=memo_only
        )
        if part is None:
            return None
        self._saw(update)
        self.rendered, self.rendered_panels = update.state, update.panels_state
        html, self.seen = part
        return html

    def _saw(self, update: live_render.SharedUpdate) -> None:
        self.audience = update.screen.can_control
        self.render_seconds = update.render_seconds
        self.playing = update.screen.run.status == Run.STATUS_PLAYING
        self.last_push = time.monotonic()
