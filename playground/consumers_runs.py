"""The run page's websocket: joins `run_<id>`, renders fragments for its viewer from the DB.

Protocol:
- connect `/ws/runs/<share_token>/?seen=<seq>[&step=<n>|&cycle=<n>]`; the page's sync form sends
  `{"seen": <last seq it shows>, "step": "", "cycle": ""}` (htmx `ws-send`) every time the socket
  opens, including after a reconnect.
- The consumer answers (and answers every `run.updated` notification the worker publishes after
  a commit) with out-of-band fragments: a live viewer gets every panel at the run's head and the
  event-log rows after its `seen` (catch-up by sequence number); a viewer pinned to a step/cycle
  (a share link, history) gets only the "live is at step N" indicator.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from playground.models import Run
from playground.selectors import runs as run_selectors
from playground.selectors.scenarios import Actor
from playground.services.ownership import SESSION_KEY

logger = logging.getLogger(__name__)


def _int(value: Any) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


class RunConsumer(AsyncWebsocketConsumer):
    run_id: int | None = None
    group_name: str = ""

    async def connect(self) -> None:
        token = self.scope["url_route"]["kwargs"]["token"]
        self.run_id = await database_sync_to_async(
            lambda: Run.objects.filter(share_token=token).values_list("pk", flat=True).first()
        )()
        if self.run_id is None:
            await self.close(code=4404)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.seen = _int(query.get("seen", [0])[0]) or 0
        self.step = _int(query.get("step", [None])[0])
        self.cycle = _int(query.get("cycle", [None])[0])
        self.rendered: tuple[Any, ...] | None = None
        session = self.scope.get("session")
        user = self.scope.get("user")
        self.actor = Actor(
            session_token=(session.get(SESSION_KEY, "") if session is not None else ""),
            user=user if user is not None and getattr(user, "is_authenticated", False) else None,
        )
        self.group_name = f"run_{self.run_id}"
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            data = json.loads(text_data or "{}")
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        self.seen = max(0, _int(data.get("seen")) or 0)
        self.step = _int(data.get("step"))
        self.cycle = _int(data.get("cycle"))
        self.rendered = None
        await self.push(hello=True)

    async def run_updated(self, event: dict[str, Any]) -> None:
        await self.push()

    async def push(self, hello: bool = False) -> None:
        html = await database_sync_to_async(self.render)(hello)
        if html:
            await self.send(text_data=html)

    @property
    def pinned(self) -> bool:
        return self.step is not None or self.cycle is not None

    def render(self, hello: bool) -> str:
        run = Run.objects.filter(pk=self.run_id).first()
        if run is None:
            return ""
        state = (
            run.head_step,
            run.last_seq,
            run.reveal,
            run.status,
            run.speed,
            run.pause_requested,
            run.actions.count(),
            run.actions.filter(state__in=["pending", "running"]).count(),
        )
        if state == self.rendered and not hello:
            return ""  # nothing changed since this viewer's last render
        self.rendered = state
        progress = run_selectors.run_progress(run=run)
        if self.pinned:
            return render_to_string(
                "playground/runs/_pinned_update.html", {"run": run, "progress": progress, "hello": hello}
            )
        screen = run_selectors.run_screen(run=run, actor=self.actor)
        log, omitted = run_selectors.log_rows(run=run, after_seq=self.seen, upto_seq=screen.shown_seq)
        if log:
            self.seen = log[-1]["seq"]
        return render_to_string(
            "playground/runs/_live_update.html",
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
