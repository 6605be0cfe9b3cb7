"""The envelope's create as the upload's worker checks it, in one process: CPU split by part.

    python bench/envelope_create.py [--input FILE | --nodes 5000 --pods 150000] [--import] [--fork] [--runs N] [--profile]

What `bench/envelope_web.py` times as "create" (upload -> scenario page) is, past the POST, the
worker's `upload_check` (services.scenario_uploads) of a `ScenarioUpload`: the engine's loader
over the text, the scenario's rows, the workloads' pods kept for the scenario page, the upload's
outcome. This runs that function itself on a fresh SQLite database, with the web's default limits
(which admit the envelope; no broker: the preparation it queues after the commit is recorded,
not sent), and splits its CPU seconds (`time.process_time`)
by wrapping the functions each part is, those the tree has (an older tree names its parts
otherwise; a part it lacks reads 0):

- yaml: the loader's YAML decoding (`decode_yaml`);
- loader: the rest of the loader's validation (`load_scenario_text` less the decoding);
- copy: the documents copied for storing (`split_loaded`: trees before the rows' single
  serialisation);
- rows json: each object's JSON text made from the loader's documents (`stored_objects`);
- rows insert: the INSERT of the rows (`insert_rows`: values prepared, then executed);
- workload pods: the pods the workloads create, kept for the scenario page;
- other: the rest (the upload and scenario rows, the commit, the outcome's notices).

Each run is a new scenario in the same database. `--import`: the upload replaces the objects of
a small scenario instead (the scenario page's import: a cluster dump is reduced, `copy` is then
its reduction and copy, and its rows' JSON is in `other`). `--profile` prints the last run's
cProfile (its overhead doubles the times). `--fork`: then the scenario forked by another user,
as the scenario page's Fork button does it in the request (`scenario_fork`), CPU and wall.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import io
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# (part, module, function): the functions each part is, where the tree has them.
PARTS = (
    ("yaml", "scheduler_core.loader.load", "decode_yaml"),
    ("loader", "scheduler_core.loader", "load_scenario_text"),  # callers import it when they call it
    ("copy", "playground.services.scenario_validation", "split_loaded"),
    ("rows json", "playground.services.scenario_validation", "stored_objects"),
    ("rows json", "playground.services.cluster_import", "stored_objects"),
    ("copy", "playground.services.cluster_import", "_reduced"),
    ("rows insert", "playground.services.scenario_objects", "insert_rows"),
    ("rows insert", "playground.services.scenario_rows", "insert_rows"),
    ("workload pods", "playground.services.scenarios", "keep_workload_pods"),
)
ORDER = ("yaml", "loader", "copy", "rows json", "rows insert", "workload pods", "other")


def timed_parts(spent: dict[str, float]) -> None:
    """Wrap each part's function where its callers find it; `spent` sums their CPU seconds."""
    for part, module_name, name in PARTS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        function = getattr(module, name, None)
        if function is None:
            continue
        setattr(module, name, _timer(function, part, spent))


def _timer(function: Callable[..., Any], part: str, spent: dict[str, float]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[part] = spent.get(part, 0.0) + time.process_time() - started

    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, help="a scenario file (default: the generated envelope)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--import", dest="importing", action="store_true", help="import into a scenario instead")
    parser.add_argument("--fork", action="store_true", help="then fork the scenario made (in the request)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="envelope-create-")
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/db.sqlite3"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: nothing is sent
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from playground.models import ScenarioUpload
    from playground.services import scenario_uploads
    from playground.services.runs import prepare

    queued: list[Any] = []
    prepare.send_task = lambda *task, **options: queued.append(task)  # the broker's part: not measured
    if args.input:
        text, label = args.input.read_text(), args.input.name
    else:
        from bench.generate_envelope import render

        text, label = render(args.nodes, args.pods), f"{args.nodes} x {args.pods}"
    print(f"{label}: {len(text.encode()) / 1e6:.1f} MB of YAML", flush=True)
    spent: dict[str, float] = {}
    timed_parts(spent)
    target = None
    if args.importing:
        from bench.generate_envelope import render
        from playground.ownership import Actor
        from playground.services import scenarios

        target = scenarios.scenario_create(actor=Actor(session_token="b" * 32), name="Target", yaml_text=render(2, 3))
    operation = ScenarioUpload.IMPORT if target is not None else ScenarioUpload.CREATE
    for run in range(args.runs):
        spent.clear()
        upload = ScenarioUpload.objects.create(operation=operation, scenario=target, name="Envelope", source=label,
                                               text=text, owner_token="b" * 32)
        profiler = cProfile.Profile() if args.profile and run == args.runs - 1 else None
        cpu, wall = time.process_time(), time.monotonic()
        if profiler is not None:
            profiler.enable()
        scenario_uploads.upload_check(upload_id=upload.pk)
        if profiler is not None:
            profiler.disable()
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        upload.refresh_from_db()
        assert upload.status == ScenarioUpload.DONE, upload.error
        report(run, cpu, wall, spent, upload.scenario.kube_objects.count())
        if args.fork:
            fork(upload.scenario)
        if profiler is not None:
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(35)
            print(out.getvalue())


def fork(scenario: Any) -> None:
    """The scenario forked by another user, timed (the fork's rows, its YAML and start kept as
    the source's when they are current)."""
    from playground.ownership import Actor
    from playground.services import scenarios

    cpu, wall = time.process_time(), time.monotonic()
    forked = scenarios.scenario_fork(scenario=scenario, actor=Actor(session_token="f" * 32))
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    print(f"  fork: {cpu:.2f} s CPU, {wall:.2f} s wall ({forked.kube_objects.count():,} rows)", flush=True)


def report(run: int, cpu: float, wall: float, spent: dict[str, float], rows: int) -> None:
    """One run's line: the whole check, then each part (the loader's net of the YAML decoding)."""
    parts = dict(spent)
    parts["loader"] = parts.get("loader", 0.0) - parts.get("yaml", 0.0)
    parts["other"] = cpu - sum(spent.get(part, 0.0) for part in ORDER if part not in ("yaml", "other"))
    shown = ", ".join(f"{part} {parts.get(part, 0.0):.2f}" for part in ORDER)
    print(f"run {run + 1}: the check {cpu:.2f} s CPU, {wall:.2f} s wall ({rows:,} rows): {shown}", flush=True)


if __name__ == "__main__":
    main()
