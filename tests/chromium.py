"""Debian's Chromium as the browser tests and the web benchmark drive it (through Playwright).

The flags keep a headless Chromium off the network it cannot reach here (background
networking, component updates, sync) and runnable as root in a container (no sandbox)."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
