"""The diagnostics page's websocket: it shows each ping's answer as the worker pushes it."""

from __future__ import annotations

from django.template.loader import render_to_string

from playground.consumers.fragments import FragmentConsumer
from playground.groups import DIAGNOSTICS_GROUP


class DiagnosticsConsumer(FragmentConsumer):
    def group_for(self) -> str:
        return DIAGNOSTICS_GROUP

    async def connect(self) -> None:
        from django.conf import settings

        user = self.scope.get("user")
        if not (settings.DIAGNOSTICS_PUBLIC or (user is not None and getattr(user, "is_staff", False))):
            await self.close(code=4403)  # production: staff only, like the page
            return
        await super().connect()

    async def on_connected(self) -> None:
        # Tells the page (and its tests) that the socket is live and subscribed.
        await self.send(text_data=render_to_string("playground/diagnostics/partials/socket_status.html"))
