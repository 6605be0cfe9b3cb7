"""What the first-difference comparison (scheduler_core.questions.compare) costs on top of the two runs.

    .venv/bin/python bench/compare_cost.py                         # 300 nodes x 500 pods (the page's cap)
    .venv/bin/python bench/compare_cost.py --nodes 300 --pods 500 --repeat 3
    .venv/bin/python bench/compare_cost.py --request                # + the page's request path
    .venv/bin/python bench/compare_cost.py --request --timeline 200000   # a long Timeline instead

Runs the generated scenario (bench/generate.py's shape) headless under v1.35 and v1.30 with
events recorded, then times folding each run's events into decisions (record_run) and comparing
them (compare_runs), best of --repeat. Prints one JSON line: the run and compare seconds, the
event counts and how many pods differ.

--request also times, in CPU seconds, what the compare page's GET does now that a worker runs
both sides (services.versions.queued, tasks/compare.py): before, the GET computed the whole
comparison (`before_request_cpu_s`: compare_versions, now the worker's `worker_cpu_s`); now it
digests the scenario's text for the key, encodes the task's message (JSON, the text inside),
renders the "Comparing…" result, and once stored reads the comparison back (unpickling it, as
the lookup does) and renders it (`request_pending_cpu_s`, `request_result_cpu_s`). Needs Django
(config.settings) for the templates, not Redis: the round trips are network, not CPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import render  # noqa: E402

from scheduler_core.loader import load_scenario_text  # noqa: E402
from scheduler_core.questions.compare import compare_runs, record_run  # noqa: E402
from scheduler_core.simulation import Simulation  # noqa: E402


def _run(text: str, version: str) -> tuple[list[dict], object, float]:
    start = time.perf_counter()
    sim = Simulation(load_scenario_text(text, source="bench"), seed=1, record_events=True, kubernetes_version=version)
    while sim.step() not in ("settled", "max-time"):
        pass
    return sim.sink.events, sim.feature_gates, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--pods", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--request", action="store_true", help="also time the page's request path (module doc)")
    ap.add_argument("--timeline", type=int, default=0, help="with --request: few objects and this many actions")
    args = ap.parse_args()
    if args.request:
        return request_path(args)
    text = render(args.nodes, args.pods)
    (ea, ga, ta), (eb, gb, tb) = _run(text, "v1.35"), _run(text, "v1.30")
    best = float("inf")
    diffs: list = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        diffs = compare_runs(record_run(ea), record_run(eb), (ga, gb), ("v1.35", "v1.30"))  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"nodes": args.nodes, "pods": args.pods, "run_s": [round(ta, 3), round(tb, 3)],
                      "events": [len(ea), len(eb)], "compare_s": round(best, 4), "pods_differing": len(diffs)}))
    return 0


def _cpu(work: Any, repeat: int = 1) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.process_time()
        result = work()
        best = min(best, time.process_time() - started)
    return best, result


def request_path(args: argparse.Namespace) -> int:
    import os
    import pickle

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.template.loader import render_to_string
    from kombu.utils.json import dumps

    from playground.services.versions.compare import compare_versions
    from playground.services.versions.queued import Job

    if args.timeline:
        from timeline_start import timeline_yaml

        text, shape = timeline_yaml(args.timeline), {"timeline_actions": args.timeline}
    else:
        text, shape = render(args.nodes, args.pods), {"nodes": args.nodes, "pods": args.pods}
    worker_s, comparison = _cpu(lambda: compare_versions(text, 1))
    job = Job("versions", text, 1)
    base = {"scenario": {"name": "bench", "share_token": "x", "feature_gates": ""}, "seed": 1}

    def pending() -> str:
        _ = job.key
        dumps({"args": [job.as_dict()]})
        return render_to_string("playground/scenarios/partials/compare_result.html",
                                {**base, "pending": job.describe(), "poll_url": "/x"})

    stored = pickle.dumps(comparison, protocol=pickle.HIGHEST_PROTOCOL)

    def result() -> str:
        _ = job.key
        return render_to_string("playground/scenarios/partials/compare_result.html",
                                {**base, "comparison": pickle.loads(stored)})

    pending_s, _ = _cpu(pending, args.repeat)
    result_s, html = _cpu(result, args.repeat)
    print(json.dumps({**shape, "yaml_bytes": len(text), "before_request_cpu_s": round(worker_s, 3),
                      "worker_cpu_s": round(worker_s, 3), "request_pending_cpu_s": round(pending_s, 4),
                      "request_result_cpu_s": round(result_s, 4), "stored_bytes": len(stored),
                      "result_html_bytes": len(html)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
