"""What an engine checkpoint costs at the envelope: its size, the time to take it and to restore it.

    python bench/checkpoint.py [--nodes 5000] [--pods 150000] [--steps 3] [--where]
    python bench/checkpoint.py --save /tmp/ck.bin && python bench/checkpoint.py --restore /tmp/ck.bin
    python bench/checkpoint.py --input /tmp/late-5000.yaml    # a dump (e.g. generate_envelope.py --bound)
    python bench/checkpoint.py --nodes 500 --pods 15000 --to-end   # late in a run: stepped to settled

Builds the engine the web worker builds for a run of bench/generate_envelope.py's cluster (events
recorded; or of the scenario file `--input`), steps it a few cycles (`--to-end`: until it
settles, so the checkpoint is one late in a run), then times `Simulation.checkpoint()` (the engine's first, then
another) and `Simulation.restore()` in this process (CPU seconds: the comparable figure on a shared machine; wall beside it) and
prints the blob's size and the process's peak RSS after each phase. The original takes `--after`
further steps and is dropped (the restore then runs as a worker's does, with no other engine
alive); the restored engine takes the same steps, and its results and recorded events must equal
the original's: a checkpoint that drops or changes state fails here too.
`--where`: the bytes of each top-level part of the engine pickled apart (shared objects are
counted in every part that reaches them, so the parts add up to more than the blob).
"""

from __future__ import annotations

import argparse
import gc
import io
import pickle
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def peak_mib() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(name: str, work: Any) -> Any:
    cpu, wall = time.process_time(), time.monotonic()
    result = work()
    print(f"{name}: {time.process_time() - cpu:.2f} s CPU, {time.monotonic() - wall:.2f} s wall, "
          f"peak RSS {peak_mib():,.0f} MiB", flush=True)
    return result


def where(sim: Any) -> None:
    """Pickle each top-level component apart, as the checkpoint's own pickler would."""
    from scheduler_core.checkpoint import EnginePickler

    def size(obj: Any) -> int:
        buf = io.BytesIO()
        EnginePickler(buf).dump(obj)
        return len(buf.getvalue())

    parts: list[tuple[str, Any]] = list(vars(sim).items())
    parts += [(f"apiserver.{k}", v) for k, v in vars(sim.apiserver).items()]
    parts += [(f"scheduler.{k}", v) for k, v in vars(sim.scheduler).items()]
    rows = []
    for name, value in parts:
        cpu = time.process_time()
        rows.append((size(value), time.process_time() - cpu, name))
    for nbytes, seconds, name in sorted(rows, reverse=True)[:30]:
        print(f"  {nbytes / 1e6:9.1f} MB {seconds:6.2f} s  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--steps", type=int, default=3, help="cycles stepped before the checkpoint")
    parser.add_argument("--to-end", action="store_true", help="step until settled before the checkpoint "
                        "(late in a run: every pod that fits is running)")
    parser.add_argument("--input", metavar="FILE", help="the scenario to run instead of generate_envelope.py's "
                        "cluster of --nodes x --pods (e.g. a dump written with --bound)")
    parser.add_argument("--after", type=int, default=20, help="cycles compared after the restore")
    parser.add_argument("--where", action="store_true")
    parser.add_argument("--save", metavar="PATH", help="write the checkpoint (and the original's next steps) "
                        "to PATH and stop before the restore")
    parser.add_argument("--restore", metavar="PATH", help="only restore a checkpoint --save wrote, in this "
                        "fresh process (a worker's peak memory: the blob and the restored engine)")
    args = parser.parse_args()
    if args.restore:
        blob = Path(args.restore).read_bytes()
        expected = pickle.loads(Path(args.restore + ".expected").read_bytes())
        print(f"{len(blob):,} bytes read, peak RSS {peak_mib():,.0f} MiB", flush=True)
        restore_and_compare(blob, expected, args.after)
        return

    from bench.generate_envelope import render
    from scheduler_core.extender import ExtenderTranscript
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.loader.limits import CLI_LIMITS
    from scheduler_core.simulation import CHECKPOINT_VERSION, Simulation

    if args.input:
        text = Path(args.input).read_text(encoding="utf-8")
        print(f"{args.input}, checkpoint version {CHECKPOINT_VERSION}", flush=True)
    else:
        text = render(args.nodes, args.pods)
        print(f"{args.nodes} nodes x {args.pods} pods, checkpoint version {CHECKPOINT_VERSION}", flush=True)

    def build(yaml_text: str) -> Simulation:
        return Simulation(load_scenario_text(yaml_text, source="bench", limits=CLI_LIMITS), seed=1,
                          record_events=True, extender_transcript=ExtenderTranscript())

    sim = timed("load + start", lambda: build(text))
    text = ""
    if args.to_end:
        timed("stepped to settled", lambda: sim.run())
        print(f"  {sim.cycles:,} cycles, {sum(1 for p in sim.scheduler.cluster.pods.values() if p.node_name):,} "
              "pods running", flush=True)
    else:
        timed(f"{args.steps} steps", lambda: [sim.step() for _ in range(args.steps)])
    sim.sink.events.clear()
    gc.collect()
    if args.where:
        where(sim)
    blob = timed("checkpoint (the engine's first)", sim.checkpoint)
    print(f"  {len(blob):,} bytes", flush=True)
    blob = timed("checkpoint", sim.checkpoint)
    print(f"  {len(blob):,} bytes", flush=True)
    # The original's next steps are recorded, then it is dropped: the restore runs as a worker's
    # does, without another engine alive beside it (its full collection first walks what is).
    timed(f"original: {args.after} steps", lambda: [sim.step() for _ in range(args.after)])
    expected = (sim.sink.events, sim.result(False))
    if args.save:
        Path(args.save).write_bytes(blob)
        Path(args.save + ".expected").write_bytes(pickle.dumps(expected))
        return
    sim = None
    gc.collect()
    restore_and_compare(blob, expected, args.after)


def restore_and_compare(blob: bytes, expected: tuple[list[Any], dict[str, Any]], after: int) -> None:
    """Restore `blob`, take `after` steps, and exit 1 unless the events and result are `expected`."""
    from scheduler_core.simulation import Simulation

    restored = timed("restore", lambda: Simulation.restore(blob))
    blob = b""
    cpu = []
    for _ in range(after):
        start = time.process_time()
        restored.step()
        cpu.append(time.process_time() - start)
    print(f"restored: {after} steps, CPU per step max {max(cpu):.2f} s, total {sum(cpu):.2f} s, "
          f"peak RSS {peak_mib():,.0f} MiB", flush=True)
    same_events = restored.sink.events == expected[0]
    same_result = restored.result(False) == expected[1]
    print(f"restored steps identically: events {same_events}, result {same_result} "
          f"({len(expected[0])} events)", flush=True)
    if not (same_events and same_result):
        sys.exit(1)


if __name__ == "__main__":
    main()
