"""The base consumer: join a group and forward the HTML fragments pushed to it."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from playground.monitoring.instruments import socket_closed, socket_opened


class FragmentConsumer(AsyncWebsocketConsumer):
    """Forwards `playground.groups.push_fragment` HTML to the browser.

    Subclasses name their group (`group_for`) and may send an initial fragment (`on_connected`).
    """

    group_name: str

    def group_for(self) -> str:
        raise NotImplementedError

    async def on_connected(self) -> None:
        """Hook: runs after the socket is accepted and has joined its group."""

    async def connect(self) -> None:
        self.group_name = self.group_for()
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()
        socket_opened(self, type(self).__name__.removesuffix("Consumer").lower())
        await self.on_connected()

    async def disconnect(self, code: int) -> None:
        socket_closed(self)
        if getattr(self, "group_name", None):
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def html_fragment(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])
