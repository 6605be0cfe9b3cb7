"""Where a worker's preparation of the envelope's start reaches its peak memory, phase by phase.

    python bench/envelope_phases.py --keep DIR          # once: a database with the envelope
    python bench/prepare_memory.py DIR [--check-first] [--tracemalloc] [--play-steps N [--checkpoint-every K]]

A worker that prepares a big scenario's start (`prepare.scenario_prepare_by_id`, the task sent
after an upload) reads the scenario's object rows, writes and keeps its YAML, loads it into the
engine, describes frame 0, takes checkpoint 0, stores them and keeps the engine for the run.
This runs exactly that in a fresh process on a copy of DIR's database (its prepared start and
kept YAML removed first, as right after an upload) and reports, at the entry and exit of each
part, the process's resident memory (VmRSS) and its peak so far (VmHWM), both read from
/proc/self/status: the peak is monotonic, so the part during which it rose is the part that
raised it (C calls such as pickling hold the interpreter, which a sampling thread would miss),
and the CPU seconds since the line before. A wrapped part's arguments stay referenced until it
returns, so `compute_start`, which lets go of the YAML text it is handed, is not wrapped.
`--check-first`: the upload's check (`scenario_create` of the same YAML into a new scenario)
runs first in the same process, as in the worker that checked the upload and then prepares
its start. `--tracemalloc`: the Python allocations' peak per part too (slow: about 3x the CPU).
The CPU seconds of the whole preparation are printed (time.process_time).

`--play-steps N`: then, as a user who starts the run and presses Play, the run is started from
the prepared start (`run_start`, the web's part, here in the same process) and played N steps
by the worker's own code (`worker.advance_run`, a private Redis for the run's lease and news;
the play stops after N units), in the process that prepared it: the engine it kept is the one
that plays. Each checkpoint the play stores (`Engine.store_checkpoint`) gets its own peak: the
peak is reset (`echo 5 > /proc/self/clear_refs`) at its entry and exit, so its entry line shows
the peak of the steps before it and its exit line the checkpoint's own. `--checkpoint-every K`:
a checkpoint every K frames, taken as soon as it is due (the engine's rule at 5,000 nodes is
every 220 frames, deferred up to 4 intervals while playing: the first would come after ~1,100
steps). A checkpoint's memory depends on the engine it is taken of, not on when, so a few dozen
steps show the same peaks as a long play.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MIB = 2**20


def reset_peak() -> bool:
    """Start VmHWM afresh from the current VmRSS (Linux); False where the kernel refuses."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def status() -> tuple[float, float]:
    """VmRSS and VmHWM of this process, MiB."""
    text = Path("/proc/self/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024
    hwm = int(re.search(r"VmHWM:\s+(\d+) kB", text).group(1)) / 1024
    return rss, hwm


class Phases:
    """Entry and exit lines of the wrapped parts, with the memory figures at each."""

    def __init__(self, traced: bool) -> None:
        self.depth = 0
        self.traced = traced
        self.rows: list[tuple[str, float, float, float | None]] = []
        self.cpu = time.process_time()
        self.highest = 0.0  # the highest VmHWM seen since `highest` was last set to 0 (peaks reset on the way)
        self.originals: dict[tuple[int, str], Any] = {}  # (id of owner, name) -> what `wrap` replaced

    def mark(self, label: str) -> None:
        rss, hwm = status()
        traced = None
        if self.traced:
            import tracemalloc

            traced = tracemalloc.get_traced_memory()[1] / MIB
            tracemalloc.reset_peak()
        self.rows.append((label, rss, hwm, traced))
        self.highest = max(self.highest, hwm)
        extra = f", python peak since last {traced:7.0f} MiB" if traced is not None else ""
        cpu, self.cpu = time.process_time() - self.cpu, time.process_time()
        print(f"{'  ' * self.depth}{label:<44} rss {rss:7.0f} MiB  hwm {hwm:7.0f} MiB  (+{cpu:5.2f} s CPU){extra}",
              flush=True)

    def wrap(self, owner: Any, name: str, label: str | None = None, *, own_peak: bool = False) -> None:
        """Replace `owner.name` by a wrapper that marks its entry and exit (none when the tree
        measured has no such part: the same script measures the code before a change).
        `own_peak`: the peak is reset after each of the two marks, so the entry line shows the
        peak since the last reset and the exit line the part's own."""
        inner = getattr(owner, name, None)
        if inner is None:
            return
        label = label or name
        self.originals[(id(owner), name)] = inner

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.mark(f"> {label}")
            if own_peak:
                reset_peak()
            self.depth += 1
            try:
                return inner(*args, **kwargs)
            finally:
                self.depth -= 1
                self.mark(f"< {label}")
                if own_peak:
                    reset_peak()

        setattr(owner, name, wrapped)

    def unwrap(self, owner: Any, name: str) -> None:
        """`owner.name` as it was before `wrap` (a part too frequent to mark any longer)."""
        inner = self.originals.pop((id(owner), name), None)
        if inner is not None:
            setattr(owner, name, inner)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="a DIR from envelope_phases.py --keep")
    parser.add_argument("--check-first", action="store_true", help="the upload's check first, in this process")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--play-steps", type=int, default=0, metavar="N",
                        help="then start the run and play N steps as the worker does")
    parser.add_argument("--checkpoint-every", type=int, default=0, metavar="K",
                        help="with --play-steps: a checkpoint every K frames, taken when due (default: the engine's rule)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="prepare-memory-"))
    supervisor = None
    try:
        if args.play_steps:  # the run's lease and its news need a Redis
            from playground.launcher import Supervisor, start_redis

            supervisor = Supervisor()
            (work / "redis").mkdir()
            os.environ["REDIS_URL"] = start_redis(supervisor, data_dir=work / "redis")
        for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
            if (Path(args.directory) / name).exists():
                shutil.copy(Path(args.directory) / name, work / name)
        measure(work, args)
    finally:
        if supervisor is not None:
            supervisor.stop_all()
        shutil.rmtree(work, ignore_errors=True)


def measure(work: Path, args: argparse.Namespace) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{work}/db.sqlite3"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: no task is sent
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django

    django.setup()
    logging.getLogger("playground.services.runs.prepare").setLevel(logging.ERROR)
    from playground.models import PreparedStart, Scenario
    from playground.services.runs import engine, prepare, prepared_engine
    from scheduler_core.simulation import Simulation

    scenario = Scenario.objects.filter(name="Envelope").latest("pk")
    PreparedStart.objects.all().delete()
    Scenario.objects.filter(pk=scenario.pk).update(yaml_cache="", yaml_cache_version="")
    phases = Phases(args.tracemalloc)
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start()
    print(f"measuring {Path(prepare.__file__).resolve().parents[3]}", flush=True)
    phases.mark("fresh process, django set up")
    if args.check_first:
        check_first(scenario, phases)
    for owner, name in ((prepare, "scenario_yaml_versioned"), (prepare, "scenario_manifests"),
                        (prepare, "yaml_of_objects"), (prepare, "build_yaml"), (prepare, "content_key"),
                        (prepare, "take_by_content"), (prepare, "load_simulation"),
                        (engine.Engine, "_record"), (prepare, "summarize_start"), (Simulation, "checkpoint"),
                        (prepare, "_store_for"), (prepare, "_store_in_two"), (prepare, "_write"),
                        (prepare, "insert_rows"), (prepare, "insert_with_blob"), (prepare, "update_with_blob"),
                        (prepared_engine, "keep")):
        phases.wrap(owner, name)
    cpu, wall = time.process_time(), time.monotonic()
    run(lambda: prepare.scenario_prepare_by_id(scenario_id=scenario.pk, home="bench-home"), phases)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    kept = PreparedStart.objects.filter(scenario=scenario).count()
    rss, hwm = status()
    print(f"preparation: {cpu:.1f} s CPU, {wall:.1f} s wall (load average {os.getloadavg()[0]:.1f}); "
          f"prepared starts stored: {kept}; rss {rss:.0f} MiB, peak (VmHWM) {hwm:.0f} MiB", flush=True)
    if args.play_steps:
        play(scenario, args, phases)


def play(scenario: Any, args: argparse.Namespace, phases: Phases) -> None:
    """The run started from the prepared start, then played `args.play_steps` steps by the
    worker's code (module docstring); each stored checkpoint's own peak, and the play's."""
    from django.db.models.functions import Length

    from playground.models import RunAction, RunCheckpoint
    from playground.ownership import Actor
    from playground.services.runs import actions, dispatch, engine, units, worker

    dispatch.schedule = lambda *a, **k: None  # this process is the worker (nothing is queued)
    dispatch.schedule_continuation = lambda *a, **k: None
    if args.checkpoint_every:
        engine.checkpoint_interval = lambda nodes: args.checkpoint_every
        engine.PLAY_DEFER = 0
    units.MAX_PLAY_UNITS = args.play_steps
    actor = Actor(session_token="p" * 32)
    phases.mark("> run start (the web's part)")
    run = actions.run_start(scenario=scenario, actor=actor)
    phases.mark("< run start (the web's part)")
    phases.unwrap(engine.Engine, "_record")  # once per step: the checkpoints' lines are the ones to read
    for owner, name in ((engine, "insert_with_blob"), (engine, "give_back")):
        phases.wrap(owner, name)
    phases.wrap(engine.Engine, "store_checkpoint", own_peak=True)
    reset_peak()
    phases.highest = 0.0
    phases.mark("> play")
    cpu, wall = time.process_time(), time.monotonic()
    actions.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_PLAY)
    worker.advance_run(run.pk)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    phases.mark("< play")
    run.refresh_from_db()
    stored = [f"{step} ({size / 1e6:.0f} MB)" for step, size in RunCheckpoint.objects.filter(run=run, step__gt=0)
              .annotate(size=Length("blob")).order_by("step").values_list("step", "size")]
    every = args.checkpoint_every or "the engine's rule"
    print(f"play: {run.head_step} steps (checkpoint every {every}), checkpoints stored at steps {', '.join(stored)}; "
          f"{cpu:.1f} s CPU, {wall:.1f} s wall (load average {os.getloadavg()[0]:.1f}); "
          f"the play's peak (VmHWM, highest of its parts) {phases.highest:.0f} MiB", flush=True)


def run(work: Callable[[], Any], phases: Phases) -> None:
    phases.mark("> preparation")
    work()
    phases.mark("< preparation")


def check_first(scenario: Any, phases: Phases) -> None:
    """The upload's check of the same YAML (a new scenario), as the worker ran it before."""
    from playground.ownership import Actor
    from playground.selectors.scenarios import scenario_yaml
    from playground.services import scenarios

    text = scenario_yaml(scenario=scenario)
    phases.mark("> upload check (scenario_create)")
    scenarios.scenario_create(actor=Actor(session_token="c" * 32), name="Envelope check", yaml_text=text)
    del text
    phases.mark("< upload check (scenario_create)")


if __name__ == "__main__":
    main()
