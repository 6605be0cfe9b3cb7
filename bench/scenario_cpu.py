"""Where a big scenario's create, page, edit and start spend the server's CPU, in-process.

    python bench/scenario_cpu.py [--input bench/inputs/perf-5000n-10000p.yaml] [--repeat 3]

The same requests as bench/scenario_page.py, through Django's test client on a temporary SQLite
database, each timed in CPU seconds of this process (`time.process_time`) as well as wall
seconds: on a machine shared with other work, the CPU figure is the one that does not grow with
the others' load. Run from another checkout (copy the script there) for a before/after. For the
start it reports the cold start (the YAML built and the scenario loaded in the request) and,
when this checkout prepares starts ahead (services.runs.prepare), the prepared one after the
worker's part has run (here: called directly). Figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_INPUT = Path(__file__).resolve().parent / "inputs" / "perf-5000n-10000p.yaml"


def _timed(results: dict[str, list], name: str, action: Any) -> Any:
    c0, w0 = time.process_time(), time.perf_counter()
    value = action()
    results.setdefault(name, []).append((time.process_time() - c0, time.perf_counter() - w0))
    return value


def once(text: bytes, prepare: Any, results: dict[str, list], sizes: dict[str, int]) -> None:
    """Create, page, edit, start (cold, then prepared) once; the scenario is deleted after."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client

    from playground.models import Scenario

    hx = {"HTTP_HX_REQUEST": "true"}
    client = Client()
    response = _timed(results, "create (POST, upload)", lambda: client.post(
        "/scenarios/", {"name": "big", "seed": "0", "file": SimpleUploadedFile("big.yaml", text)}))
    where = response["Location"]
    scenario = Scenario.objects.get(share_token=where.strip("/").rsplit("/", 1)[-1])
    page = _timed(results, "scenario page (GET)", lambda: client.get(where))
    sizes["scenario page bytes"] = len(page.content)
    node = scenario.kube_objects.get(kind="Node", name="node-00100")
    fields = {"action": "save_object", "kind": "Node", "object_id": node.pk, "node-name": "node-00100",
              "node-cpu": "16", "node-memory": "128Gi", "node-pods": "110", "node-zone": "zone-a",
              "node-labels": "", "node-taints": "", "node-unschedulable": ""}
    edit = _timed(results, "edit one node (htmx POST)", lambda: client.post(where, fields, **hx))
    sizes["edit answer bytes"] = len(edit.content)
    start_url = f"/scenarios/{scenario.share_token}/runs/"
    started = _timed(results, "start, cold (POST)", lambda: client.post(start_url))
    assert started.status_code == 302, started.status_code
    _timed(results, "run page (GET)", lambda: client.get(started["Location"]))
    if prepare is not None:
        _timed(results, "worker: prepare the start", lambda: prepare.prepare_start(scenario=scenario))
        _timed(results, "start, prepared (POST)", lambda: client.post(start_url))
    Scenario.objects.filter(pk=scenario.pk).delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="scenario-cpu-"))
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
                      ALLOWED_HOSTS="testserver", LOG_LEVEL="ERROR", REDIS_URL="redis://127.0.0.1:1/0")
    import django

    django.setup()
    from django.core.management import call_command

    from playground.services.runs import dispatch

    call_command("migrate", verbosity=0)
    dispatch.warm = lambda *_, **__: False  # no worker here
    try:
        from playground.services.runs import prepare
    except ImportError:
        prepare = None
    text = args.input.read_bytes()
    results: dict[str, list] = {}
    sizes: dict[str, int] = {}
    for _ in range(args.repeat):
        once(text, prepare, results, sizes)
    rows = ["| phase | CPU s (median) | wall s (median) |", "|---|---|---|"]
    for name, values in results.items():
        rows.append(f"| {name} | {statistics.median(c for c, _ in values):.2f} "
                    f"| {statistics.median(w for _, w in values):.2f} |")
    print("\n".join(rows))
    print(json.dumps({"sizes": sizes, "samples": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
