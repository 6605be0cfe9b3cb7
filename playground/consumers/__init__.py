"""Websocket consumers, one module per page that listens (see `playground.routing`)."""
