"""A big scenario as its owner meets it in a real browser: create by upload, the page, an edit, start.

    python bench/scenario_page.py [--input bench/inputs/perf-5000n-10000p.yaml] [--repeat 1]
                                  [--json out.json] [--append-results --heading ... --note ...]

Starts the real stack (Redis, one Celery worker, the web server, a temporary SQLite database:
bench/web_stack.py) and drives headless Chromium through the scenario pages, timing each step
from the click to the page (or the changed part) shown, in the browser:

- create: on /scenarios/, choose the file and press "Create scenario"; until the scenario's page
  has loaded (its load event) — the upload, validation, storing and the redirect's page;
- page: the scenario page loaded again (HTML bytes, time to load);
- edit: find one node (the list's search when the page has one), open its form, change its cpu,
  save; until the "saved" notice shows; the bytes of the answer;
- yaml view / export: the YAML view's first page, and the streamed download;
- start: press "Start run"; until the run page has loaded (and, reported apart, its socket is live).
  Before it, the benchmark waits (reported as `prepared_wait_s`) until a worker has prepared the
  scenario's run start after the edit, as a user reading the page gives it time to do.

Bytes on the wire are what Chromium reports per request (`request.sizes()`: bodies and headers,
both ways). Every phase is bounded (`--timeout`); a phase that does not finish is reported as
`null`. Figures only: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.web_page import Browser  # noqa: E402
from bench.web_stack import Stack  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "history" / "runs.md"
DEFAULT_INPUT = Path(__file__).resolve().parent / "inputs" / "perf-5000n-10000p.yaml"


class Wire:
    """Bytes each finished request moved (request + response, headers included), by URL path."""

    def __init__(self, page: Any) -> None:
        self.rows: list[tuple[float, str, str, int, int]] = []
        page.on("requestfinished", self._finished)

    def _finished(self, request: Any) -> None:
        try:
            sizes = request.sizes()
        except Exception:  # the page went away meanwhile
            return
        try:  # Chromium reports no body size for a multipart upload: count the body sent
            body = len(request.post_data_buffer or b"")
        except Exception:
            body = 0
        sent = max(sizes.get("requestBodySize", 0), body) + sizes.get("requestHeadersSize", 0)
        received = sizes.get("responseBodySize", 0) + sizes.get("responseHeadersSize", 0)
        self.rows.append((time.monotonic(), request.method, request.url, sent, received))

    def since(self, start: float) -> dict[str, int]:
        rows = [r for r in self.rows if r[0] >= start]
        return {"requests": len(rows), "sent": sum(r[3] for r in rows), "received": sum(r[4] for r in rows)}


def _timed(page: Any, wire: Wire, action: Any, done: Any) -> dict[str, Any]:
    """Run `action`, then `done` (both wait in the page); seconds between and bytes moved."""
    t0 = time.monotonic()
    try:
        action()
        done()
    except Exception as error:  # a timeout: reported, the next phases still run
        return {"s": None, "error": str(error).splitlines()[0][:200], **wire.since(t0)}
    elapsed = time.monotonic() - t0
    page.wait_for_timeout(300)  # let the last requestfinished events arrive
    return {"s": round(elapsed, 2), **wire.since(t0)}


def _phases(page: Any) -> dict[str, float]:
    """Where a form post's navigation spent its time (Navigation Timing, seconds): the post until
    its redirect arrived, the redirect's page until its first byte, then until its load event."""
    timing = page.evaluate(
        "() => { const n = performance.getEntriesByType('navigation')[0] || {};"
        " return {redirect: n.redirectEnd, first_byte: n.responseStart, load: n.loadEventEnd}; }"
    ) or {}
    redirect, first, load = (float(timing.get(k) or 0) for k in ("redirect", "first_byte", "load"))
    return {"post_s": round(redirect / 1000, 2), "page_first_byte_s": round((first - redirect) / 1000, 2),
            "page_load_s": round((load - first) / 1000, 2)}


def _html_bytes(page: Any) -> int:
    return int(page.evaluate("() => (performance.getEntriesByType('navigation')[0] || {}).decodedBodySize || 0"))


def create_scenario(page: Any, wire: Wire, path: Path, name: str) -> dict[str, Any]:
    """Upload `path` on /scenarios/: seconds until the scenario page has loaded, with its HTML
    bytes and navigation phases."""
    page.goto("/scenarios/", wait_until="load")
    page.fill("#id_name", name)
    page.set_input_files("#id_file", str(path))
    created = _timed(
        page, wire,
        lambda: page.get_by_role("button", name="Create scenario").click(),
        lambda: page.wait_for_url(re.compile(r"/scenarios/[^/]+/$"), wait_until="load"),
    )
    created["html_bytes"] = _html_bytes(page)
    created["phases"] = _phases(page)
    return created


def start_run(page: Any, wire: Wire, timeout_s: float) -> dict[str, Any]:
    """Press Start run on the scenario page: seconds until the run page has loaded (its HTML
    bytes and navigation phases), and until its websocket says "live" (`socket_live_s`)."""
    t0 = time.monotonic()
    started = _timed(page, wire, lambda: page.locator("#start-run").click(),
                     lambda: page.wait_for_url(re.compile(r"/runs/[^/]+/"), wait_until="load"))
    if started["s"] is not None:
        started["html_bytes"] = _html_bytes(page)
        started["phases"] = _phases(page)
        try:
            page.wait_for_function(
                "() => (document.querySelector('#run-socket') || {}).textContent === 'live'",
                timeout=timeout_s * 1000,
            )
            started["socket_live_s"] = round(time.monotonic() - t0, 2)
        except Exception:
            started["socket_live_s"] = None
    return started


def wait_prepared(scenario_url: str, timeout_s: float) -> float | None:
    """Seconds until a worker has prepared the scenario's run start for its objects as they are
    now (services.runs.prepare), as a user reading the page gives it time to; None when this
    checkout prepares nothing, or not within `timeout_s`."""
    try:
        from playground.models import PreparedStart, Scenario
        from playground.selectors.scenarios import objects_version
        from playground.services.runs.prepare import start_key
        from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION
    except ImportError:
        return None
    scenario = Scenario.objects.get(share_token=scenario_url.rstrip("/").rsplit("/", 1)[-1])
    key = start_key(objects_version(scenario=scenario), scenario.seed, DEFAULT_KUBERNETES_VERSION)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if PreparedStart.objects.filter(scenario=scenario, key=key).exists():
            return round(time.monotonic() - t0, 2)
        time.sleep(0.25)
    return None


def measure(stack: Stack, browser: Browser, path: Path, timeout_s: float) -> dict[str, Any]:
    context = browser.chromium.new_context(base_url=stack.url)
    context.set_default_timeout(timeout_s * 1000)
    page = context.new_page()
    wire = Wire(page)
    result: dict[str, Any] = {"input": path.name, "input_bytes": path.stat().st_size}
    try:
        result["create"] = create_scenario(page, wire, path, f"bench {path.stem}")
        scenario_url = page.url

        result["page"] = _timed(page, wire, lambda: page.goto(scenario_url, wait_until="load"), lambda: None)
        result["page"]["html_bytes"] = _html_bytes(page)

        node = "node-00100"
        search = page.locator("#node-search")
        if search.count():
            search.fill(node)
            page.locator("#node-rows").get_by_text(node, exact=True).wait_for()
        page.get_by_role("button", name=f"Edit Node {node}").click()
        page.locator("#node-form h3", has_text=f"Edit Node {node}").wait_for()
        page.locator("#id_node-cpu").fill("16")
        result["edit"] = _timed(
            page, wire,
            lambda: page.get_by_role("button", name="Save Node").click(),
            lambda: page.locator("#notice", has_text=f"Node {node} saved.").wait_for(),
        )

        yaml_page = page.locator("#yaml-page-link")
        if yaml_page.count():
            result["yaml_view"] = _timed(page, wire, lambda: yaml_page.click(), lambda: page.wait_for_load_state("load"))
            result["yaml_view"]["html_bytes"] = _html_bytes(page)
            page.goto(scenario_url, wait_until="load")
        t0 = time.monotonic()
        with page.expect_download(timeout=timeout_s * 1000) as download_info:
            page.locator("#export-link").click()
        download = download_info.value
        exported = Path(download.path()).stat().st_size
        result["export"] = {"s": round(time.monotonic() - t0, 2), "bytes": exported}

        result["prepared_wait_s"] = wait_prepared(scenario_url, timeout_s)
        result["start"] = start_run(page, wire, timeout_s)
    finally:
        context.close()
    return result


def _s(phase: dict[str, Any] | None) -> str:
    if not phase:
        return "–"
    return "**did not finish**" if phase.get("s") is None else f"{phase['s']} s"


def _kb(value: int | None) -> str:
    if value is None:
        return "–"
    return f"{value / 1024:,.0f} KB" if value < 1024 * 1024 else f"{value / 1048576:,.2f} MiB"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| input | create (upload → page shown; page HTML) | page load (HTML) | edit one node: save → notice (answer) "
        "| YAML view (HTML) | export download | start prepared after the edit | start → run page shown (socket live; HTML) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in report["runs"]:
        create, page, edit = row.get("create", {}), row.get("page", {}), row.get("edit", {})
        yaml_view, export, start = row.get("yaml_view"), row.get("export", {}), row.get("start", {})
        lines.append(
            f"| {row['input']} ({_kb(row['input_bytes'])}) "
            f"| {_s(create)} ({_kb(create.get('html_bytes'))}) "
            f"| {_s(page)} ({_kb(page.get('html_bytes'))}) "
            f"| {_s(edit)} ({_kb(edit.get('received'))}) "
            f"| {_s(yaml_view) + ' (' + _kb(yaml_view.get('html_bytes')) + ')' if yaml_view else 'none'} "
            f"| {export.get('s', '–')} s ({_kb(export.get('bytes'))}) "
            f"| {'–' if row.get('prepared_wait_s') is None else str(row['prepared_wait_s']) + ' s'} "
            f"| {_s(start)} ({start.get('socket_live_s', '–')} s; {_kb(start.get('html_bytes'))}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT, help="the scenario file to upload")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0, help="s for one phase")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--append-results", action="store_true", help=f"append the table to {RESULTS.name}")
    parser.add_argument("--heading", default="Big scenario in the browser")
    parser.add_argument("--note", default="", help="a line for the results (e.g. the machine's load)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (DB, logs)")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "runs": [],
    }
    stack = Stack(keep=args.keep).start()
    browser = Browser()
    try:
        browser.warm(stack.url)
        for attempt in range(args.repeat):
            print(f"[scenario bench] {args.input.name} run {attempt + 1}/{args.repeat}", file=sys.stderr, flush=True)
            report["runs"].append(measure(stack, browser, args.input, args.timeout))
            print(json.dumps(report["runs"][-1]), file=sys.stderr, flush=True)
    finally:
        browser.close()
        stack.stop()
    text = markdown(report)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.append_results:
        with RESULTS.open("a") as handle:
            handle.write(f"\n## {args.heading} ({report['date']})\n\n`python bench/scenario_page.py "
                         f"--input {args.input.name} --repeat {args.repeat}`. {args.note}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
