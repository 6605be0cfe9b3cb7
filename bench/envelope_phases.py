"""The envelope's create, prepare and start, each timed in one process (no browser, no worker).

    python bench/envelope_phases.py [--nodes 5000] [--pods 150000] [--profile] [--keep DIR | --reuse DIR] [--steps N]

What the web request and the worker do for the upload and the first run of a big scenario,
called directly on a temporary SQLite database: `scenario_create` (the upload's validation and
rows), `scenario_prepare_by_id` (the worker's YAML and prepared start), `run_start` (the
start stored for a run) and the run page's first load, cold and warm (`first_load`). Redis is
not needed: the queued preparation cannot be sent (a warning), which is why this process calls
it itself. CPU and wall seconds per phase (on a shared machine
the CPU seconds are the comparable figures); `--profile` prints each phase's cProfile, sorted by
cumulative time (its overhead triples the times). `--keep DIR` leaves the database in DIR and
`--reuse DIR` measures only the first load again on it (the same run, in a fresh process).
`--steps N` (a private Redis for the run's lease and the news) then takes N Steps as the worker
does (`advance_run`, the engine restored once before the first) and after each does what the web
does for the run's live page: the shared live update (`live_render.shared_update`) and the
Events panel's body, the Pods panel's only with `--pods-panel` (it is fetched only while on
screen); CPU per Step, median and max (the first Step left out: the pages' views are cold).
bench/envelope_web.py measures the same in the real stack and the browser.
"""

from __future__ import annotations

import argparse
import cProfile
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


def phase(name: str, work: Callable[[], Any], profile: bool) -> Any:
    profiler = cProfile.Profile() if profile else None
    cpu, wall = time.process_time(), time.monotonic()
    if profiler is not None:
        profiler.enable()
    result = work()
    if profiler is not None:
        profiler.disable()
    print(f"{name}: {time.process_time() - cpu:.1f} s CPU, {time.monotonic() - wall:.1f} s wall", flush=True)
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
        print(out.getvalue())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="store the database in DIR (kept)")
    parser.add_argument("--reuse", metavar="DIR", help="a DIR from --keep: measure the first load only")
    parser.add_argument("--steps", type=int, default=0, help="then N Steps: the worker's and the web's CPU per Step")
    parser.add_argument("--pods-panel", action="store_true", help="with --steps: fetch the Pods panel's body too")
    args = parser.parse_args()
    supervisor = None
    if args.steps:
        from playground.launcher import Supervisor, start_redis

        supervisor = Supervisor()
        os.environ["REDIS_URL"] = start_redis(supervisor, data_dir=Path(tempfile.mkdtemp(prefix="phases-redis-")))
    try:
        run_phases(args)
    finally:
        if supervisor is not None:
            supervisor.stop_all()


def run_phases(args: argparse.Namespace) -> None:

    directory = args.reuse or args.keep or tempfile.mkdtemp(prefix="envelope-phases-")
    Path(directory).mkdir(parents=True, exist_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/db.sqlite3"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: tasks are not sent
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django

    django.setup()
    logging.getLogger("playground.services.runs.prepare").setLevel(logging.ERROR)  # "could not queue"
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from bench.generate_envelope import render
    from playground.models import Run, Scenario
    from playground.ownership import Actor
    from playground.services import scenarios
    from playground.services.runs import actions, prepare

    actor = Actor(session_token="b" * 32)
    if args.reuse:
        run = Run.objects.filter(scenario__name="Envelope").latest("pk")
        first_load(run, actor, args.profile)
        if args.steps:
            steps(run, actor, args.steps, args.pods_panel)
        return
    text = render(args.nodes, args.pods)
    print(f"{args.nodes} nodes x {args.pods} pods: {len(text) / 1e6:.1f} MB of YAML", flush=True)
    created = phase("create", lambda: scenarios.scenario_create(actor=actor, name="Envelope", yaml_text=text),
                    args.profile)
    phase("prepare", lambda: prepare.scenario_prepare_by_id(scenario_id=created.pk), args.profile)
    scenario = Scenario.objects.get(pk=created.pk)
    run = phase("start", lambda: actions.run_start(scenario=scenario, actor=actor), args.profile)
    print(f"run {run.pk}: {run.events.count()} events, head step {run.head_step}")
    first_load(run, actor, args.profile)
    if args.steps:
        steps(run, actor, args.steps, args.pods_panel)


def steps(run: Any, actor: Any, count: int, pods_panel: bool) -> None:
    """`count` Steps of `run` as the worker takes them, and the web's work for each (module
    docstring); CPU seconds per part and Step."""
    import statistics

    from django.test import Client

    from playground.consumers import live_render
    from playground.models import RunAction
    from playground.ownership import SESSION_KEY
    from playground.services.runs import actions, dispatch, worker
    from playground.services.runs.cache import EngineCache

    dispatch.schedule = lambda *a, **k: None  # this process is the worker
    client = Client()
    session = client.session
    session[SESSION_KEY] = actor.session_token
    session.save()
    cache = EngineCache(freeze_gc=True)
    run.refresh_from_db()
    phase("engine restored", lambda: cache.get(run), False)
    parts: dict[str, list[float]] = {"worker": [], "live update": [], "events body": [], "pods body": []}

    def cpu(name: str, work: Callable[[], Any]) -> Any:
        started = time.process_time()
        result = work()
        parts[name].append(time.process_time() - started)
        return result

    for _ in range(count):
        actions.run_enqueue(run=run, actor=actor, kind=RunAction.KIND_STEP)
        cpu("worker", lambda: worker.advance_run(run.pk, cache=cache))
        run.refresh_from_db()
        cpu("live update", lambda: live_render.shared_update(run.pk, actor, True, time.monotonic()))
        query = f"?step={run.head_step}"
        cpu("events body", lambda q=query: client.get(f"/runs/{run.share_token}/events/{q}"))
        if pods_panel:
            cpu("pods body", lambda q=query: client.get(f"/runs/{run.share_token}/pods/{q}"))
    for name, values in parts.items():
        rest = values[1:]
        if rest:
            print(f"Step {name}: median {statistics.median(rest) * 1000:.0f} ms CPU, max {max(rest) * 1000:.0f} ms"
                  f" (first {values[0] * 1000:.0f} ms; {len(values)} Steps)", flush=True)


def first_load(run: Any, actor: Any, profile: bool) -> None:
    """The run page served twice by this process (Django's test client, the owner's session):
    cold (no view cached: a web process that has not shown this run yet) and warm. A small
    run's page is served first, so template compilation and first imports are not counted."""
    from django.conf import settings
    from django.test import Client

    from bench.generate_envelope import render
    from playground.models import Scenario
    from playground.ownership import SESSION_KEY
    from playground.selectors import frame_views
    from playground.selectors.run_newer_changes import run_newer_changes
    from playground.services import scenarios
    from playground.services.runs import actions

    settings.ALLOWED_HOSTS = ["*"]
    client = Client()
    session = client.session
    session[SESSION_KEY] = actor.session_token
    session.save()
    small = scenarios.scenario_create(actor=actor, name="Small", yaml_text=render(10, 100))
    client.get(f"/runs/{actions.run_start(scenario=Scenario.objects.get(pk=small.pk), actor=actor).share_token}/")
    # What the start's own page computed once per run and keeps in the shared cache (Redis in
    # the stack), so another web process finds it: not part of that process's first load.
    run_newer_changes(run=run)
    frame_views.clear_cache()
    for label in ("first load (cold)", "first load (warm)"):
        page = phase(label, lambda: client.get(f"/runs/{run.share_token}/"), profile)
        print(f"  {page.status_code}, {len(page.content):,} bytes of HTML", flush=True)


if __name__ == "__main__":
    main()
