"""CPU per student action, by where it is spent: the web request, the worker, the live push.

    .venv/bin/python bench/action_cost.py [--actions 40] [--slug percentage-of-nodes-to-score]

A classroom's step latency is set by how much CPU one action costs on the shared cores (thirty
students in a closed loop wait behind each other's actions), not by any one part's wall time,
which a loaded machine inflates. This measures process CPU time (`time.process_time`) of each part
in one process, on a private Redis and a temporary SQLite database, with no other load:

- web: the Step/Play post as the run page sends it (Django's test client, every middleware,
  the action stored, the task sent to the broker);
- worker: the task's body (`advance_run`: lease, action, commit, notification);
- push: one live viewer's update after the action (the consumer's render), as the owner sees it.

It reports the median per part for actions on a settled run (what a class does most once the
lesson's run has finished) and for the steps of an unsettled one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=40)
    parser.add_argument("--slug", default="percentage-of-nodes-to-score")
    parser.add_argument("--queries", action="store_true", help="print the SQL of one settled action, by part")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the settled run's actions here")
    args = parser.parse_args(argv)

    from playground.launcher import Supervisor, start_redis

    tmp = Path(tempfile.mkdtemp(prefix="actioncost-"))
    supervisor = Supervisor()
    try:
        redis_url = start_redis(supervisor, data_dir=tmp, output=(tmp / "redis.log").open("wb"))
        os.environ.update({
            "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_ENV": "development", "DEBUG": "true",
            "REDIS_URL": redis_url, "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}", "LOG_LEVEL": "WARNING",
            "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
        })
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", interactive=False, verbosity=0)
        return _measure(args)
    finally:
        supervisor.stop_all()


def _measure(args: argparse.Namespace) -> int:
    from django.test import Client

    from playground.consumers.runs import RunConsumer
    from playground.models import Run
    from playground.ownership import SESSION_KEY, Actor
    from playground.services import gallery
    from playground.services.runs.worker import advance_run

    gallery.seed()
    client = Client(SERVER_NAME="localhost")
    location = client.get(f"/gallery/{args.slug}/")["Location"]
    client.get(location)
    location = client.post(location, {"action": "fork"})["Location"]
    run_path = client.post(location.rstrip("/") + "/runs/")["Location"]
    token = run_path.rstrip("/").rsplit("/", 1)[-1]
    run = Run.objects.get(share_token=token)
    advance_run(run.pk)
    owner = Actor(session_token=client.session.get(SESSION_KEY, ""))
    viewer = RunConsumer()
    viewer.run_id, viewer.seen, viewer.step, viewer.cycle = run.pk, 0, None, None
    viewer.rendered, viewer.actor, viewer.resyncs, viewer.following = None, owner, [], False
    viewer.render(hello=True, since=time.monotonic())

    def one(kind: str) -> tuple[float, float, float, int]:
        t0 = time.process_time()
        response = client.post(run_path, {"action": kind}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.content[:200]
        t1 = time.process_time()
        queued = viewer.render(hello=False, since=time.monotonic())  # the "queued" push
        t2 = time.process_time()
        advance_run(run.pk)
        t3 = time.process_time()
        done = viewer.render(hello=False, since=time.monotonic())
        t4 = time.process_time()
        return (t1 - t0) * 1000, (t3 - t2) * 1000, (t2 - t1 + t4 - t3) * 1000, len(queued) + len(done)

    def report(label: str, rows: list[tuple[float, float, float, int]]) -> None:
        web, worker, push, size = (statistics.median(r[i] for r in rows) for i in range(4))
        print(f"{label}: {len(rows)} actions; CPU ms per action (median): web {web:.1f}, worker {worker:.1f}, "
              f"push {push:.1f}, total {web + worker + push:.1f}; pushed {size / 1024:.1f} KB")

    unsettled = []
    for _ in range(args.actions):
        run.refresh_from_db()
        if run.status == Run.STATUS_SETTLED:
            break
        unsettled.append(one("step"))
    report("steps of the unsettled run", unsettled)
    client.post(run_path, {"action": "play"}, HTTP_HX_REQUEST="true")
    advance_run(run.pk)
    viewer.render(hello=False, since=time.monotonic())
    if args.queries:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        for part, call in (
            ("web", lambda: client.post(run_path, {"action": "step"}, HTTP_HX_REQUEST="true")),
            ("push (queued)", lambda: viewer.render(hello=False, since=time.monotonic())),
            ("worker", lambda: advance_run(run.pk)),
            ("push (done)", lambda: viewer.render(hello=False, since=time.monotonic())),
        ):
            with CaptureQueriesContext(connection) as captured:
                call()
            print(f"{part}: {len(captured.captured_queries)} queries")
            for query in captured.captured_queries:
                print("   ", query["sql"][:160])
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    settled = [one("step" if i % 2 == 0 else "play") for i in range(args.actions)]
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(args.profile))
    report("steps and plays of the settled run", settled)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
