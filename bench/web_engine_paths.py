"""Engine CPU spent inside web requests, per path, at the web's limits.

    python bench/web_engine_paths.py [--actions 200000] [--skip-compare] [--inputs-only] [--editor-only]

Each path's service is called in this process, as the view calls it, on a temporary SQLite
database (no Redis, no worker: what a request computes itself), and its CPU seconds are
printed. The goal (issue 38, item 4) is <= ~0.5 s of engine CPU per request; the rest belongs to
a worker. Inputs: `bench/timeline_start.py`'s few objects with a long Timeline, and the
largest scenario "compare versions" accepts (services/versions/compare.py: 300 nodes, 500 pods).
Paths:
- upload/create: the loader validates the whole scenario in the request;
- start, the largest scenario still computed in the request (999 objects: under PREPARE_MIN_OBJECTS,
  timeline included; the upload's part is in this figure too);
- start of the long timeline: computed by a worker since start_weight (here: the cost that moved);
- cluster-action preflight (addPod) on the long timeline's run;
- compare versions (two headless runs in the request) at its size cap, and with the long timeline;
- scenario inputs (create from a file or paste, import, a cluster dump, a YAML-view page's save):
  per input, what the request spent before (the whole service: the loader) and what it spends
  now (services.scenario_uploads: the estimate, then either the same service for a small input
  or the raw text kept for a worker), with the worker's part and the estimate's own cost.
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


def cpu(name: str, work: Callable[[], Any]) -> Any:
    started = time.process_time()
    try:
        result = work()
    except Exception as error:  # a refusal is a result too (e.g. compare's size cap)
        result = error
    spent = time.process_time() - started
    note = f" ({type(result).__name__}: {str(result)[:100]})" if isinstance(result, Exception) else ""
    print(f"{name}: {spent:.2f} s CPU{' (over 0.5 s)' if spent > 0.5 else ''}{note}", flush=True)
    return result


def compare_cap_yaml(nodes: int = 300, pods: int = 500) -> str:
    docs = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i + 1}, labels: {{topology.kubernetes.io/zone: z{i % 3}}}}}\n"
            "status: {capacity: {cpu: '8', memory: 32Gi, pods: '110'}}\n" for i in range(nodes)]
    docs += [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i + 1}, labels: {{app: a{i % 10}}}}}\n"
             "spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: 500m, memory: 1Gi}}}]}\n"
             for i in range(pods)]
    return "---\n".join(docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200_000)
    parser.add_argument("--skip-compare", action="store_true")
    parser.add_argument("--inputs-only", action="store_true", help="only the scenario inputs' paths")
    parser.add_argument("--edges-only", action="store_true", help="only the costliest inputs still loaded in a request")
    parser.add_argument("--editor-only", action="store_true",
                        help="only an editor form's save of one Node of a 5,000 x 10,000 scenario, before and now")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="web-engine-paths-")
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/db.sqlite3"
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens: tasks are not sent
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django

    django.setup()
    logging.getLogger("playground.services.runs.prepare").setLevel(logging.ERROR)  # "could not queue"
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from bench.timeline_start import timeline_yaml
    from playground.models import RunAction, Scenario
    from playground.ownership import Actor
    from playground.selectors.scenarios import scenario_yaml
    from playground.services import scenarios
    from playground.services.runs import actions, preflight, prepare
    from playground.services.versions.compare import compare_versions
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    actor = Actor(session_token="w" * 32)
    if args.editor_only:
        scenarios.scenario_create(actor=actor, name="warm", yaml_text=compare_cap_yaml(5, 5))
        editor_save(actor)
        return
    if args.edges_only:
        scenarios.scenario_create(actor=actor, name="warm", yaml_text=compare_cap_yaml(5, 5))
        edges(actor)
        return
    if args.inputs_only:
        scenarios.scenario_create(actor=actor, name="warm", yaml_text=compare_cap_yaml(5, 5))  # imports, caches
        scenario_inputs(actor, args.actions)
        return
    # A web process has served starts before: the engine's modules are imported, its caches warm.
    actions.run_start(scenario=scenarios.scenario_create(actor=actor, name="warm", yaml_text=compare_cap_yaml(5, 5)),
                      actor=actor)
    edge = compare_cap_yaml(500, 499)  # 999 objects: the largest start a request still computes
    cpu("start computed in the request, 500 x 499 (999 objects, the largest under the threshold)",
        lambda: actions.run_start(scenario=scenarios.scenario_create(actor=actor, name="edge", yaml_text=edge),
                                  actor=actor))
    long_text = timeline_yaml(args.actions)
    cap_text = compare_cap_yaml()
    long = cpu(f"upload/create, {args.actions:,}-action timeline", lambda: scenarios.scenario_create(
        actor=actor, name="timeline", yaml_text=long_text))
    cap = cpu("upload/create, 300 nodes x 500 pods", lambda: scenarios.scenario_create(
        actor=actor, name="cap", yaml_text=cap_text))
    print(f"  start weights: timeline {prepare.start_weight(long.pk):,}, 300 x 500 {prepare.start_weight(cap.pk):,}")
    cpu("start computed in the request, 300 x 500 (under the threshold)", lambda: actions.run_start(
        scenario=Scenario.objects.get(pk=cap.pk), actor=actor))
    cpu("start of the long timeline (a worker's since start_weight)", lambda: prepare.compute_start(
        scenario_yaml(scenario=Scenario.objects.get(pk=long.pk)), 0, DEFAULT_KUBERNETES_VERSION))
    prepare.scenario_prepare_by_id(scenario_id=long.pk)
    run = actions.run_start(scenario=Scenario.objects.get(pk=long.pk), actor=actor)
    cpu("cluster-action preflight (addPod) on the long timeline's run", lambda: preflight.check_cluster_action(
        run, {"action": "addPod", "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "extra"},
                                          "spec": {"containers": [{"name": "c", "image": "pause"}]}}}))
    assert RunAction.objects.filter(run=run).count() == 0
    if not args.skip_compare:
        cpu("compare versions, 300 x 500 (its cap)", lambda: compare_versions(cap_text, 0))
        cpu(f"compare versions, {args.actions:,}-action timeline", lambda: compare_versions(long_text, 0))
        under_cap = timeline_yaml(100_000)  # 4.1 MB: under compare's 5 MB input limit
        cpu("compare versions, 100,000-action timeline", lambda: compare_versions(under_cap, 0))
    scenario_inputs(actor, args.actions)


def deployments_yaml(replicas: int) -> str:
    """A node and a Deployment of `replicas` pods: a few hundred bytes that the loader expands."""
    return ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '8', memory: 16Gi}}\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
            f"  replicas: {replicas}\n  selector: {{matchLabels: {{app: d}}}}\n  template:\n"
            "    metadata: {labels: {app: d}}\n    spec: {containers: [{name: c, image: pause}]}\n")


def scenario_inputs(actor: Any, actions: int) -> None:
    """Each scenario input path, before (the loader in the request) and now (the request's part
    and the worker's). No worker here: the queued check is not sent, its part is called."""
    from bench.timeline_start import timeline_yaml
    from playground.models import Scenario, ScenarioUpload
    from playground.selectors.scenarios import scenario_yaml
    from playground.services import scenario_objects, scenario_uploads, scenarios
    from playground.services.cluster_import import scenario_import_any

    scenario_uploads._queue = lambda upload_id: None  # nothing listens: the bench runs the worker's part
    inputs = Path(__file__).resolve().parent / "inputs"
    fixtures = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
    cases = [("compare's cap, 300 x 500", compare_cap_yaml()),
             (f"{actions:,}-action timeline", timeline_yaml(actions)),
             ("Deployment of 60,000 replicas", deployments_yaml(60_000))]
    for name in ("perf-5000n-10000p.yaml", "envelope-5000n-150000p.yaml"):
        if (inputs / name).exists():  # bench/generate.py, bench/generate_envelope.py
            cases.append((name, (inputs / name).read_text()))
    print(f"upload thresholds: weight {scenario_uploads.worker_weight():,} "
          f"({scenario_uploads.BYTES_PER_UNIT} bytes or one workload pod per unit)")
    for label, text in cases:
        weight = cpu(f"[{label}] estimate ({len(text):,} bytes)", lambda text=text: scenario_uploads.load_weight(text))
        cpu(f"[{label}] create, before: the loader in the request",
            lambda text=text: scenarios.scenario_create(actor=actor, name="before", yaml_text=text, source="bench.yaml"))

        def now(text: str = text) -> Any:
            if scenario_uploads.needs_worker(text):
                return scenario_uploads.upload_later(actor=actor, operation=ScenarioUpload.CREATE, text=text,
                                                     name="now", source="bench.yaml")
            return scenarios.scenario_create(actor=actor, name="now", yaml_text=text, source="bench.yaml")

        kept = cpu(f"[{label}] create, now: the request's part (weight {weight:,})", now)
        if isinstance(kept, ScenarioUpload):
            cpu(f"[{label}]   the worker's part", lambda kept=kept: scenario_uploads.upload_check(upload_id=kept.pk))
        target = scenarios.scenario_create(actor=actor, name="target", yaml_text=compare_cap_yaml(2, 2))
        cpu(f"[{label}] import, before", lambda text=text, target=target: scenario_import_any(
            scenario=target, actor=actor, text=text, source="bench.yaml"))
        cpu(f"[{label}] import, now: the request's part", lambda text=text, target=target: (
            scenario_uploads.needs_worker(text, importing=True) and scenario_uploads.upload_later(
                actor=actor, operation=ScenarioUpload.IMPORT, text=text, source="bench.yaml", scenario=target)))
    dump = (fixtures / "kubectl-get-all.yaml").read_text()
    target = scenarios.scenario_create(actor=actor, name="dump", yaml_text=compare_cap_yaml(2, 2))
    cpu(f"[kubectl dump, {len(dump):,} bytes] import, before", lambda: scenario_import_any(
        scenario=target, actor=actor, text=dump, source="dump"))
    cpu(f"[kubectl dump] import, now: the request's part (weight {scenario_uploads.load_weight(dump):,})",
        lambda: scenario_uploads.needs_worker(dump, importing=True))
    edges(actor)
    # A YAML-view page's save loads the whole scenario again: the largest scenario input above.
    big = Scenario.objects.filter(name="before").order_by("-pk").first()
    if big is not None:
        first_page = scenario_yaml(scenario=big).split("\n---\n", 1)[0]
        count = big.kube_objects.count()
        cpu(f"[YAML view, a page of a {count:,}-object scenario] save, before", lambda: scenario_objects.scenario_documents_replace(
            scenario=Scenario.objects.get(pk=big.pk), actor=actor, first=0, count=1, text=first_page))
        cpu("[YAML view] save, now: the request's part", lambda: scenario_uploads.needs_worker(
            first_page, scenario=Scenario.objects.get(pk=big.pk)))
        node = big.kube_objects.filter(kind="Node").order_by("order").first()
        cpu(f"[object form, a Node of the {count:,}-object scenario] save, before (now a worker's: --editor-only)",
            lambda: scenario_objects.scenario_object_save(scenario=Scenario.objects.get(pk=big.pk), actor=actor,
                                                   manifest=node.manifest, object_id=node.pk))



def editor_save(actor: Any) -> None:
    """An editor form's save of one Node of a 15,000-object scenario: before, the whole scenario
    loaded in the request (services.scenario_objects.scenario_object_save); now, the request weighs the
    scenario's stored objects and keeps the change for a worker (services.scenario_uploads)."""
    from playground.models import Scenario
    from playground.services import scenario_objects, scenario_uploads, scenarios

    big = scenarios.scenario_create(actor=actor, name="editor", yaml_text=compare_cap_yaml(5_000, 10_000))
    count = big.kube_objects.count()
    node = big.kube_objects.filter(kind="Node").order_by("order").first()
    cpu(f"[object form, a Node of the {count:,}-object scenario] save, before: the loader in the request",
        lambda: scenario_objects.scenario_object_save(scenario=Scenario.objects.get(pk=big.pk), actor=actor,
                                               manifest=node.manifest, object_id=node.pk))

    def now() -> Any:
        scenario = Scenario.objects.get(pk=big.pk)
        assert scenario_uploads.scenario_needs_worker(scenario)
        return scenario_uploads.object_later(actor=actor, scenario=scenario, kind="Node", label=node.name,
                                             manifest=node.manifest, object_id=node.pk)

    cpu("[object form] save, now: the request's part (weigh, keep for a worker)", now)
    nodes = (scenario_uploads.worker_weight() - 1) // scenario_uploads.STORED_OBJECT_UNITS // 3
    edge = scenarios.scenario_create(actor=actor, name="editor-edge", yaml_text=compare_cap_yaml(nodes, 2 * nodes))
    assert not scenario_uploads.scenario_needs_worker(edge)
    node = edge.kube_objects.filter(kind="Node").order_by("order").first()
    cpu(f"[edge] object form, a Node of a {3 * nodes:,}-object scenario, still in the request",
        lambda: scenario_objects.scenario_object_save(scenario=Scenario.objects.get(pk=edge.pk), actor=actor,
                                               manifest=node.manifest, object_id=node.pk))


def _largest(make: Callable[[int], str], fits: Callable[[str], bool], low: int, high: int) -> tuple[int, str]:
    """The largest n in [low, high) whose `make(n)` still `fits` (the request's own path)."""
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(make(middle)) else (low, middle)
    return low, make(low)


def edges(actor: Any) -> None:
    """The costliest inputs a request still loads itself: each path's input just under the weight
    at which a worker takes it (what bounds the request's engine CPU)."""
    from bench.timeline_start import timeline_yaml
    from playground.models import Scenario
    from playground.selectors.scenarios import scenario_yaml
    from playground.services import scenario_objects, scenario_uploads, scenarios
    from playground.services.cluster_import import scenario_import_any

    under = lambda text: not scenario_uploads.needs_worker(text)  # noqa: E731
    under_import = lambda text: not scenario_uploads.needs_worker(text, importing=True)  # noqa: E731
    n, text = _largest(timeline_yaml, under, 1, 200_000)
    cpu(f"[edge] create, {n:,}-action timeline ({len(text):,} bytes), still in the request",
        lambda: scenarios.scenario_create(actor=actor, name="edge", yaml_text=text))
    n, text = _largest(deployments_yaml, under, 1, 200_000)
    cpu(f"[edge] create, a Deployment of {n:,} replicas, still in the request",
        lambda: scenarios.scenario_create(actor=actor, name="edge", yaml_text=text))
    n, text = _largest(lambda k: compare_cap_yaml(k, 2 * k), under, 1, 20_000)
    cpu(f"[edge] create, {n:,} nodes x {2 * n:,} pods ({len(text):,} bytes), still in the request",
        lambda: scenarios.scenario_create(actor=actor, name="edge", yaml_text=text))
    target = scenarios.scenario_create(actor=actor, name="edge-target", yaml_text=compare_cap_yaml(2, 2))
    n, text = _largest(timeline_yaml, under_import, 1, 200_000)
    cpu(f"[edge] import, {n:,}-action timeline ({len(text):,} bytes), still in the request",
        lambda: scenario_import_any(scenario=target, actor=actor, text=text, source="edge"))
    dump = (Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "kubectl-get-all.yaml").read_text()
    head, _, items = dump.partition("items:\n")
    items, _, tail = items.partition("\nkind: List\n")
    pieces = items.split("\n- ")
    n, text = _largest(lambda k: f"{head}items:\n" + "\n- ".join(pieces[:k]) + f"\nkind: List\n{tail}", under_import,
                       1, len(pieces))
    cpu(f"[edge] import, the kubectl dump's first {n:,} items ({len(text):,} bytes), still in the request",
        lambda: scenario_import_any(scenario=target, actor=actor, text=text, source="edge"))
    big = scenarios.scenario_create(actor=actor, name="edge-yaml", yaml_text=compare_cap_yaml(2, 2))
    n, text = _largest(lambda k: compare_cap_yaml(k, 2 * k), lambda t: not scenario_uploads.needs_worker(
        "", scenario=scenarios.scenario_import_yaml(scenario=big, actor=actor, text=t)), 1, 2_000)
    scenarios.scenario_import_yaml(scenario=big, actor=actor, text=text)
    first_page = scenario_yaml(scenario=big).split("\n---\n", 1)[0]
    cpu(f"[edge] YAML view save, a page of a {3 * n:,}-object scenario, still in the request",
        lambda: scenario_objects.scenario_documents_replace(scenario=Scenario.objects.get(pk=big.pk), actor=actor, first=0,
                                                     count=1, text=first_page))


if __name__ == "__main__":
    main()
