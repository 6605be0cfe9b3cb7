"""Screenshots of the playground as a visitor sees it, at a phone's and a desktop's width.

    python bench/screenshots.py --out /tmp/shots [--sizes 3,500,2000] [--with-5000] [--steps 3]

Starts the real stack (Redis, one Celery worker, the web server, a temporary SQLite database:
bench/web_stack.py, as bench/envelope_web.py does), seeds the gallery, and drives headless
Chromium at 390 and 1440 px wide through:

- the home page and the gallery;
- a lesson mid-way (--lesson, priority-preemption by default): its page, then its run after
  --steps clicks on Step;
- runs of generated scenarios (bench/generate.py's owned shape: zones, pods owned by ReplicaSets)
  at 3 and 500 nodes (--sizes), and 5,000 with --with-5000 (uploading and starting that one takes minutes
  here): each uploaded, started and stepped --steps times, then its run page and (3 nodes) its
  metrics page.

Each page is written as <out>/<name>-<width>.png: the top of the page, at most --max-height px
(a run page at 5,000 nodes is far taller than anyone scrolls). `index.json` lists the files with
their page address and bytes. Nothing is asserted: these are for people to look at.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.generate import render_owned  # noqa: E402
from bench.scenario_page import Wire, create_scenario, start_run  # noqa: E402
from bench.web_page import Browser  # noqa: E402
from bench.web_stack import Stack  # noqa: E402

WIDTHS = ((390, 844), (1440, 900))


def shoot(page: Any, out: Path, name: str, max_height: int, shots: list[dict[str, Any]]) -> None:
    """The page's top `max_height` px (or all of it when shorter) at the current width."""
    page.wait_for_load_state("load")
    page.wait_for_timeout(400)  # let htmx settle the swaps it started on load (panels fetched by id)
    width = page.viewport_size["width"]
    height = min(int(page.evaluate("document.documentElement.scrollHeight")), max_height)
    path = out / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height})
    shots.append({"file": path.name, "url": page.url, "bytes": path.stat().st_size, "page_height": height})
    print(f"[screenshots] {path.name} {path.stat().st_size // 1024} KB", file=sys.stderr, flush=True)


def step(page: Any, times: int, timeout_s: float) -> None:
    """Click Step `times` times, each until the page's step counter has moved."""
    for _ in range(times):
        before = page.locator("#run-step").text_content()
        page.locator("#btn-step").click()
        page.wait_for_function(
            "(b) => (document.querySelector('#run-step') || {}).textContent !== b", arg=before,
            timeout=timeout_s * 1000)


def lesson(page: Any, wire: Wire, slug: str, args: argparse.Namespace, shots: list[dict[str, Any]]) -> str:
    """The lesson's page, then its run part-way; returns the run page's address."""
    page.goto(f"/gallery/{slug}/")
    shoot(page, args.out, f"lesson-{slug}", args.max_height, shots)
    start_run(page, wire, args.timeout)
    step(page, args.steps, args.timeout)
    return page.url


def generated_run(page: Any, wire: Wire, nodes: int, args: argparse.Namespace) -> str:
    """Upload a generated scenario of `nodes` nodes (two pods a node, 3 zones), start and step it;
    returns the run page's address."""
    pods = nodes * 2
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"shots-{nodes}n-{pods}p.yaml"
        path.write_text(render_owned(nodes, pods, sets=min(50, max(2, pods // 4))))
        create_scenario(page, wire, path, f"screenshots {nodes} nodes")
    start_run(page, wire, args.timeout)
    step(page, args.steps, args.timeout)
    return page.url


def capture(stack: Stack, browser: Browser, args: argparse.Namespace) -> list[dict[str, Any]]:
    from playground.services import gallery

    gallery.seed()
    shots: list[dict[str, Any]] = []
    sizes = [int(n) for n in args.sizes.split(",")] + ([5000] if args.with_5000 else [])
    context = browser.chromium.new_context(base_url=stack.url, viewport={"width": 1440, "height": 900})
    context.set_default_timeout(args.timeout * 1000)
    page = context.new_page()
    wire = Wire(page)
    try:
        # The runs are made once (at the desktop width) and then looked at at each width.
        runs = {"lesson-run": lesson(page, wire, args.lesson, args, shots)}
        for nodes in sizes:
            runs[f"run-{nodes}-nodes"] = generated_run(page, wire, nodes, args)
        for width, height in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            for name, url in (("home", "/"), ("gallery", "/gallery/")):
                page.goto(url)
                shoot(page, args.out, name, args.max_height, shots)
            if width != 1440:
                page.goto(f"/gallery/{args.lesson}/")
                shoot(page, args.out, f"lesson-{args.lesson}", args.max_height, shots)
            for name, url in runs.items():
                page.goto(url)
                page.wait_for_function("() => (document.querySelector('#run-socket') || {}).textContent === 'live'")
                shoot(page, args.out, name, args.max_height, shots)
            token = re.search(r"/runs/([^/]+)/", runs["run-3-nodes"]).group(1)
            page.goto(f"/runs/{token}/metrics/")
            shoot(page, args.out, "run-3-nodes-metrics", args.max_height, shots)
    finally:
        context.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="directory for the PNG files")
    parser.add_argument("--lesson", default="priority-preemption", help="gallery slug of the lesson")
    parser.add_argument("--steps", type=int, default=3, help="Step clicks on each run before its screenshot")
    parser.add_argument("--sizes", default="3,500", help="node counts of the generated runs, comma-separated (3 is needed: its metrics page)")
    parser.add_argument("--with-5000", action="store_true", help="also a 5,000-node run (slow to upload and start)")
    parser.add_argument("--max-height", type=int, default=4000, help="px of each page's top kept")
    parser.add_argument("--timeout", type=float, default=600.0, help="s for any one phase")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stack = Stack(keep=args.keep).start()
    browser = Browser()
    try:
        browser.warm(stack.url)
        shots = capture(stack, browser, args)
    finally:
        browser.close()
        stack.stop()
    (args.out / "index.json").write_text(json.dumps(shots, indent=1) + "\n")
    print(json.dumps({"out": str(args.out), "files": len(shots)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
