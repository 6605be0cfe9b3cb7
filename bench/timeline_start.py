"""A scenario of few objects with a long Timeline: where its run start's CPU goes.

    python bench/timeline_start.py [--actions 200000]

One node, one pod and a Timeline of `--actions` cordon/uncordon actions (one a second). Such a
scenario used to count as small (2 objects: under services.runs.prepare.PREPARE_MIN_OBJECTS), so its
run start was computed inside the web request. The timeline's actions now count with the
objects (services.runs.prepare.start_weight) and a worker computes it. Phases, each timed in this
process on a temporary SQLite database (no Redis: the queued preparation is not sent, so this
process calls the worker's part itself): `create` (the upload's validation and rows: a request),
`weight` (the count the start and the upload decide by: a request), `compute` (the start a
request computed before: now a worker's), `prepare` (the worker's preparation) and `start` (a
start that finds it prepared: a request). CPU and wall seconds per phase.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timeline_yaml(actions: int, *, nodes: int = 1, pods: int = 1) -> str:
    """`nodes` nodes, `pods` small pods and a Timeline cordoning and uncordoning n1 every second."""
    docs = [
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i + 1}}}\n"
        "status: {capacity: {cpu: '8', memory: 16Gi, pods: '110'}}\n"
        for i in range(nodes)
    ]
    docs += [
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i + 1}}}\n"
        "spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: 10m}}}]}\n"
        for i in range(pods)
    ]
    lines = [f"- {{at: {i + 1}, action: {'uncordon' if i % 2 else 'cordon'}, node: n1}}" for i in range(actions)]
    docs.append("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n" + "\n".join(lines) + "\n")
    return "---\n".join(docs)


def phase(name: str, work: Callable[[], Any]) -> Any:
    cpu, wall = time.process_time(), time.monotonic()
    result = work()
    print(f"{name}: {time.process_time() - cpu:.2f} s CPU, {time.monotonic() - wall:.2f} s wall", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200_000)
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="timeline-start-")
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/db.sqlite3"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: tasks are not sent
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django

    django.setup()
    logging.getLogger("playground.services.runs.prepare").setLevel(logging.ERROR)  # "could not queue"
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from playground.models import Scenario
    from playground.ownership import Actor
    from playground.services import scenarios
    from playground.services.runs import actions, prepare
    from playground.services.runs.prepare import PREPARE_MIN_OBJECTS
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    text = timeline_yaml(args.actions)
    actor = Actor(session_token="b" * 32)
    print(f"{args.actions} timeline actions: {len(text) / 1e6:.1f} MB of YAML", flush=True)
    created = phase("create (request)", lambda: scenarios.scenario_create(actor=actor, name="Timeline", yaml_text=text))
    weight = phase("weight (request)", lambda: prepare.start_weight(created.pk))
    print(f"  weight {weight} (a worker prepares at >= {PREPARE_MIN_OBJECTS})")
    scenario = Scenario.objects.get(pk=created.pk)
    from playground.selectors.scenarios import scenario_yaml

    yaml_text = scenario_yaml(scenario=scenario)
    phase("compute (was the request's, now a worker's)",
          lambda: prepare.compute_start(yaml_text, scenario.seed, DEFAULT_KUBERNETES_VERSION))
    phase("prepare (worker)", lambda: prepare.scenario_prepare_by_id(scenario_id=created.pk))
    scenario = Scenario.objects.get(pk=created.pk)
    phase("start, prepared (request)", lambda: actions.run_start(scenario=scenario, actor=actor))


if __name__ == "__main__":
    main()
