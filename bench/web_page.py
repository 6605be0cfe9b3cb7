"""What one browser sees of a run: first load, Step click -> DOM change, websocket traffic, play.

Headless Debian Chromium through Playwright's sync API (as the live tests drive it). The run
page's step counter `#run-step` is the element every live update replaces (its `_status.html`
fragment comes out-of-band with each websocket push), so "the page changed" means its text
changed. The click and the wait for that change happen inside the page (a MutationObserver), so
the latency is the browser's own clock from the click to the DOM change, not Playwright's
round trips.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tests.chromium import CHROMIUM, CHROMIUM_ARGS

# Click a button, resolve when #run-step's text differs from before (or after `timeout` ms).
CLICK_AND_WAIT = """
([selector, timeout]) => new Promise((resolve) => {
  const text = () => { const el = document.querySelector('#run-step'); return el ? el.textContent.trim() : null; };
  const before = text();
  let observer = null, timer = null;
  const t0 = performance.now();
  const check = () => {
    const now = text();
    if (now !== null && now !== before) {
      observer.disconnect(); clearTimeout(timer);
      resolve({ms: performance.now() - t0, before: before, after: now});
    }
  };
  observer = new MutationObserver(check);
  observer.observe(document.documentElement, {subtree: true, childList: true, characterData: true});
  timer = setTimeout(() => { observer.disconnect(); resolve({ms: null, before: before, after: text()}); }, timeout);
  document.querySelector(selector).click();
})
"""


@dataclass
class SocketLog:
    """Every websocket frame the page received: (monotonic time, bytes), and how many opened."""

    frames: list[tuple[float, int]] = field(default_factory=list)
    opened: int = 0
    closed: int = 0

    def attach(self, page: Any) -> None:
        def on_socket(ws: Any) -> None:
            self.opened += 1
            ws.on("framereceived", lambda payload: self.frames.append((time.monotonic(), _size(payload))))
            ws.on("close", lambda _ws: setattr(self, "closed", self.closed + 1))

        page.on("websocket", on_socket)

    def since(self, start: float) -> list[int]:
        return [size for when, size in self.frames if when >= start]


def _size(payload: Any) -> int:
    return len(payload.encode()) if isinstance(payload, str) else len(payload)


class Browser:
    """One Playwright + Chromium for the whole benchmark."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self.chromium = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)

    def warm(self, base_url: str) -> None:
        """Load one page and close it: Chromium starts its network service and other helper
        processes with its first page, which a user's running browser has long done. Every
        measured page is still a fresh tab (its own context and renderer)."""
        context = self.chromium.new_context(base_url=base_url)
        try:
            context.new_page().goto("/", wait_until="load")
        finally:
            context.close()

    def open(self, base_url: str, session_cookie: tuple[str, str] | None = None) -> tuple[Any, SocketLog]:
        """A fresh context and page (logged in as the run's owner when a session cookie is given)."""
        context = self.chromium.new_context(base_url=base_url)
        if session_cookie:
            name, value = session_cookie
            context.add_cookies([{"name": name, "value": value, "url": base_url}])
        page = context.new_page()
        sockets = SocketLog()
        sockets.attach(page)
        return page, sockets

    def close(self) -> None:
        try:
            self.chromium.close()
        finally:
            self._playwright.stop()


def first_load(page: Any, url: str, timeout_s: float) -> dict[str, Any]:
    """Navigate to the run page: time to the load event, HTML bytes, time until the socket is live."""
    t0 = time.monotonic()
    response = page.goto(url, wait_until="load", timeout=timeout_s * 1000)
    loaded = time.monotonic() - t0
    html = response.body() if response is not None else b""
    live_s: float | None = None
    try:
        page.wait_for_function(
            "() => (document.querySelector('#run-socket') || {}).textContent === 'live'", timeout=timeout_s * 1000
        )
        live_s = time.monotonic() - t0
    except Exception:  # the socket never said hello: reported as None
        pass
    timing = page.evaluate(
        "() => { const n = performance.getEntriesByType('navigation')[0] || {};"
        " return {ttfb: n.responseStart, html_done: n.responseEnd, dom_ready: n.domContentLoadedEventEnd,"
        " load: n.loadEventEnd}; }"
    )
    phases = {k: round(v / 1000, 3) for k, v in (timing or {}).items() if isinstance(v, (int, float))}
    return {"load_s": round(loaded, 3), "html_bytes": len(html), "socket_live_s": live_s and round(live_s, 3),
            "phases_s": phases}


def click_and_wait(page: Any, selector: str, timeout_s: float) -> dict[str, Any]:
    """Click `selector`; milliseconds until #run-step changed (ms None: it did not within the timeout)."""
    return page.evaluate(CLICK_AND_WAIT, [selector, int(timeout_s * 1000)])


def step_counter(page: Any) -> str | None:
    return page.evaluate("() => { const el = document.querySelector('#run-step'); return el ? el.textContent.trim() : null; }")


def sample_counter(page: Any, seconds: float, every: float, db_head: Any = None) -> dict[str, Any]:
    """Read #run-step every `every` s for `seconds` s: distinct values, longest stall, the DB's head."""
    samples: list[tuple[float, str | None, int | None]] = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        samples.append((time.monotonic() - t0, step_counter(page), db_head() if db_head else None))
        page.wait_for_timeout(every * 1000)
    values = [value for _t, value, _h in samples]
    stall, longest, last_value, since = 0.0, 0.0, object(), 0.0
    for when, value, _h in samples:
        if value != last_value:
            last_value, since = value, when
        stall = when - since
        longest = max(longest, stall)
    heads = [h for _t, _v, h in samples if h is not None]
    return {
        "samples": len(samples),
        "distinct_values": len(set(values)),
        "first": values[0] if values else None,
        "last": values[-1] if values else None,
        "longest_stall_s": round(longest, 2),
        "db_head_first": heads[0] if heads else None,
        "db_head_last": heads[-1] if heads else None,
        "trace": [[round(when, 2), value, head] for when, value, head in samples],  # (s, page, DB head)
    }
