"""CPU a web Step's frame costs the worker, whole-view build against build-from-changes.

    .venv/bin/python bench/step_cost.py FILE [--steps 100] [--warm 0]

A web run records a frame after every engine step (playground/services/runs/engine.py
`Engine._record`). This drives one engine through FILE's steps and, after each, builds the frame
both ways on the same state, timing each with `time.process_time` (CPU, not wall: the machine's
2 cores are shared):

- whole: every pod's entry built afresh, every node and pod compared with the view before, a
  keyframe every KEYFRAME_EVERY frames (the worker before build-from-changes);
- changes: pod entries re-described only where their state changed, only those diffed, a
  keyframe when the deltas since the last one outweigh it (`playground.keyframe_rule`).

Each includes serializing the stored value to JSON, as the database write does. The engine's
own step (the scheduling cycle) is reported beside them. Both frames are checked equal (same
JSON) whenever both store a delta. No database: the commit and the notification are not in it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _cpu(fn: Any) -> tuple[float, Any]:
    start = time.process_time()
    value = fn()
    return time.process_time() - start, value


class Writer:
    """One way of building frames, with its own memos and keyframe state."""

    def __init__(self, sim: Any, incremental: bool) -> None:
        from playground import frame_views
        from playground.keyframe_rule import KeyframeRule
        from scheduler_core.view.pods import PodViewMemo

        self.sim, self.incremental = sim, incremental
        self.node_memo: dict[str, Any] = {}
        self.pod_memo = PodViewMemo() if incremental else None
        self.rule = KeyframeRule()
        self.fv = frame_views
        self.view: dict[str, Any] | None = None
        self.keyframes = 0
        self.bytes = 0

    def frame(self, step: int) -> dict[str, Any]:
        from playground.keyframe_rule import json_size
        from playground.services.runs.engine import engine_view

        fv = self.fv
        view = fv.compact_view(engine_view(self.sim, self.node_memo, self.pod_memo))
        stored = view
        if self.view is not None:
            if self.incremental:
                known = {"pods": fv.Changes(self.pod_memo.changed, self.pod_memo.appended)}
                delta = fv.diff(self.view, view, base=step - 1, changed=known)
                size = json_size(delta)
                if not self.rule.wants_keyframe(size):
                    stored = delta
                    self.rule.stored_delta(size)
            elif step % fv.KEYFRAME_EVERY != 0:
                stored = fv.diff(self.view, view, base=step - 1)
        if stored is view:
            self.keyframes += 1
            if self.incremental:
                self.rule.stored_keyframe(view)
        self.bytes += len(json.dumps(stored))  # what the database write serializes
        self.view = view
        return stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warm", type=int, default=0, help="engine steps before the first frame")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import django

    django.setup()
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.loader.limits import CLI_LIMITS
    from scheduler_core.simulation import Simulation

    load_cpu, sim = _cpu(lambda: Simulation(load_scenario_text(args.file.read_text(), source=args.file.name,
                                                               limits=CLI_LIMITS), seed=1, record_events=True))
    for _ in range(args.warm):
        sim.step(3600.0)
        sim.sink.events = []
    writers = {"whole": Writer(sim, False), "changes": Writer(sim, True)}
    first = {name: _cpu(lambda w=w: w.frame(0))[0] for name, w in writers.items()}
    cpu: dict[str, list[float]] = {"engine": [], "whole": [], "changes": []}
    checked = 0
    for step in range(1, args.steps + 1):
        took, result = _cpu(lambda: sim.step(3600.0))
        sim.sink.events = []
        cpu["engine"].append(took)
        frames = {}
        for name, writer in writers.items():
            took, frames[name] = _cpu(lambda w=writer, s=step: w.frame(s))
            cpu[name].append(took)
        if "delta" in frames["whole"] and "delta" in frames["changes"]:
            assert json.dumps(frames["whole"]) == json.dumps(frames["changes"]), step
            checked += 1
        if result == "settled":
            break
    cs = sim.scheduler.cluster
    print(f"{args.file.name}: {len(cs.nodes)} nodes, {len(cs.all_pods)} pods; load {load_cpu:.1f} s CPU; "
          f"{len(cpu['engine'])} steps after {args.warm} (deltas checked equal: {checked})")
    print(f"frame 0 (a keyframe both ways): whole {first['whole'] * 1000:.0f} ms, changes {first['changes'] * 1000:.0f} ms")
    print(f"{'CPU per step, ms':24} {'median':>8} {'p95':>8} {'mean':>8}")
    for name, values in cpu.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{name:24} {statistics.median(values) * 1000:8.1f} {p95 * 1000:8.1f} {statistics.mean(values) * 1000:8.1f}")
    for name in ("whole", "changes"):
        w = writers[name]
        print(f"{name}: {w.keyframes} keyframes, {w.bytes / 1e6:.1f} MB stored")
    return 0


if __name__ == "__main__":
    sys.exit(main())
