"""Many viewers of one run: N websocket clients speaking the run page's protocol.

Each client connects to `/ws/runs/<share token>/?seen=<seq>`, sends the page's sync message
(`{"seen": seq, "step": "", "cycle": ""}`) and then only listens, as a browser tab would. The
driver queues Step actions one at a time through the app's service (as the owner's Step button
does) and, for every step, records when each client first receives a push showing that step
(`<strong id="run-step">N</strong>`). Every push's event-log rows (`data-seq="K"`) are collected
so that the end result can say whether each viewer got every event exactly once and in order.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

STEP_RE = re.compile(r'id="run-step">(\d+)<')
SEQ_RE = re.compile(r'data-seq="(\d+)"')
CONNECTING_AT_ONCE = 10


@dataclass
class Viewer:
    index: int
    steps: list[tuple[float, int]] = field(default_factory=list)  # (receive time, step shown)
    seqs: list[int] = field(default_factory=list)
    messages: int = 0
    biggest: int = 0
    error: str = ""


async def _listen(
    viewer: Viewer, url: str, origin: str, seen: int, ready: asyncio.Event, counter: list[int], gate: asyncio.Semaphore
) -> None:
    import websockets

    try:
        async with gate:  # handshakes a few at a time, as tabs opening over a few seconds would
            ws = await websockets.connect(url, origin=origin, max_size=None, open_timeout=60, ping_interval=None)
        async with ws:
            await ws.send(json.dumps({"seen": seen, "step": "", "cycle": ""}))
            first = True
            async for message in ws:
                now = time.monotonic()
                text = message if isinstance(message, str) else message.decode()
                viewer.messages += 1
                viewer.biggest = max(viewer.biggest, len(text.encode()))
                step = STEP_RE.search(text)
                if step:
                    viewer.steps.append((now, int(step.group(1))))
                viewer.seqs.extend(int(s) for s in SEQ_RE.findall(text))
                if first:
                    first = False
                    counter[0] += 1
                    if counter[0] >= counter[1]:
                        ready.set()
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a refused or dropped socket is a result, not a crash
        viewer.error = f"{type(error).__name__}: {error}"[:200]


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _drive(
    *,
    ws_url: str,
    origin: str,
    viewers: int,
    steps: int,
    seen: int,
    start_step: int,
    enqueue_step: Callable[[], None],
    final_seq: Callable[[], int],
    step_timeout: float,
    phase_timeout: float,
) -> dict[str, Any]:
    crowd = [Viewer(i) for i in range(viewers)]
    ready = asyncio.Event()
    counter = [0, viewers]
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    tasks = [asyncio.create_task(_listen(v, ws_url, origin, seen, ready, counter, gate)) for v in crowd]
    phase_start = time.monotonic()
    result: dict[str, Any] = {"viewers": viewers, "steps_requested": steps}
    try:
        try:
            await asyncio.wait_for(ready.wait(), timeout=step_timeout)
        except TimeoutError:
            pass
        result["connected"] = counter[0]
        result["connect_s"] = round(time.monotonic() - phase_start, 2)
        latencies: list[float] = []
        spreads: list[float] = []
        done_steps = 0
        timed_out = False
        for i in range(steps):
            if time.monotonic() - phase_start > phase_timeout:
                timed_out = True
                break
            target = start_step + i + 1
            t0 = time.monotonic()
            await asyncio.to_thread(enqueue_step)
            deadline = t0 + step_timeout
            while time.monotonic() < deadline:
                if all(any(s >= target for _t, s in v.steps) or v.error for v in crowd):
                    break
                await asyncio.sleep(0.02)
            arrivals = [next((t for t, s in v.steps if s >= target), None) for v in crowd]
            got = [t - t0 for t in arrivals if t is not None]
            latencies.extend(got)
            if got:
                spreads.append(max(got) - min(got))
            if len(got) < len(crowd):
                result.setdefault("missed", []).append({"step": target, "viewers_without_it": len(crowd) - len(got)})
                timed_out = True
                break
            done_steps += 1
        await asyncio.sleep(1.0)  # let the last pushes land before judging order
        last_seq = await asyncio.to_thread(final_seq)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    expected = list(range(seen + 1, last_seq + 1))
    # "once, in order": strictly increasing; "complete": every event of the steps arrived (the
    # page's log shows at most its newest LOG_LIMIT rows per push, so a big step can omit some).
    in_order = sum(1 for v in crowd if all(a < b for a, b in zip(v.seqs, v.seqs[1:], strict=False)))
    complete = sum(1 for v in crowd if sorted(set(v.seqs)) == expected)
    duplicated = sum(1 for v in crowd if len(v.seqs) != len(set(v.seqs)))
    steps_in_order = sum(1 for v in crowd if [s for _t, s in v.steps] == sorted(s for _t, s in v.steps))
    result.update(
        steps_done=done_steps,
        timed_out=timed_out,
        delivery_p50_ms=_ms(_percentile(latencies, 0.50)),
        delivery_p95_ms=_ms(_percentile(latencies, 0.95)),
        delivery_max_ms=_ms(max(latencies) if latencies else None),
        fanout_spread_p95_ms=_ms(_percentile(spreads, 0.95)),
        messages_per_viewer=round(sum(v.messages for v in crowd) / max(1, len(crowd)), 1),
        biggest_message_bytes=max((v.biggest for v in crowd), default=0),
        events_expected=len(expected),
        viewers_with_events_once_in_order=in_order,
        viewers_with_every_event=complete,
        viewers_with_duplicate_events=duplicated,
        viewers_with_steps_in_order=steps_in_order,
        viewer_errors=sorted({v.error for v in crowd if v.error})[:3],
    )
    return result


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def run_viewers(**kwargs: Any) -> dict[str, Any]:
    """Run the crowd on a fresh event loop (call from a thread with no running loop)."""
    return asyncio.run(_drive(**kwargs))
