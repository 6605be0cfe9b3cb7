"""The teacher's challenge results page's websocket: joins `challenge_<scenario id>` and sends
the results table again whenever a learner of the challenge joins or one of their runs moves.

Owner only, as the page. A class stepping through its runs notifies many times a second; each
socket renders at most once per RENDER_INTERVAL seconds (the last notification of a burst is
always rendered, after the interval), so a busy class costs the teacher's page a bounded amount
of work, and one render reads every attempt from the database like the page does.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from playground.consumers.db import consumer_db
from playground.groups import challenge_group
from playground.models import Scenario
from playground.ownership import actor_for_scope, can_edit
from playground.presenters.challenge_results import challenge_results

RENDER_INTERVAL = 1.0  # s: at most one render per socket this often


class ChallengeResultsConsumer(AsyncWebsocketConsumer):
    scenario_id: int | None = None
    group_name: str = ""

    async def connect(self) -> None:
        token = self.scope["url_route"]["kwargs"]["token"]
        self.scenario_id = await consumer_db(self._owned_scenario)(token)
        if self.scenario_id is None:
            await self.close(code=4403)  # not the owner (or no such challenge): like the page's 403
            return
        self.group_name = challenge_group(self.scenario_id)
        self._pending: asyncio.Task | None = None
        self._last = 0.0
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()
        # Whatever happened between the page's render and this socket: send the table now.
        await self._render()

    async def disconnect(self, code: int) -> None:
        pending = getattr(self, "_pending", None)
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pending
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    def _owned_scenario(self, token: str) -> int | None:
        scenario = Scenario.objects.defer("yaml_cache").filter(share_token=token).first()
        if scenario is None or not can_edit(scenario=scenario, actor=actor_for_scope(self.scope)):
            return None
        return scenario.pk

    async def challenge_changed(self, event: dict[str, Any]) -> None:
        """A learner joined or one of their runs moved: render (at most once per interval)."""
        if self._pending is not None and not self._pending.done():
            return  # a render is already due: it will read this change too
        wait = max(0.0, self._last + RENDER_INTERVAL - asyncio.get_running_loop().time())
        self._pending = asyncio.create_task(self._render_after(wait))

    async def _render_after(self, wait: float) -> None:
        if wait:
            await asyncio.sleep(wait)
        await self._render()

    async def _render(self) -> None:
        self._last = asyncio.get_running_loop().time()
        html = await consumer_db(self._table)()
        await self.send(text_data=html)

    def _table(self) -> str:
        scenario = Scenario.objects.defer("yaml_cache").get(pk=self.scenario_id)
        return render_to_string("playground/scenarios/partials/challenge_results_oob.html",
                                {"scenario": scenario, "results": challenge_results(scenario=scenario)})
