"""Workload controllers at load time: Deployments, ReplicaSets, StatefulSets, DaemonSets and
Jobs become the pods their controllers would create, before the loader builds objects.

`expand_workloads` is the loader's one entry point. It takes the documents the loader has already
reduced to what the scheduler sees (scheduler_core.loader.cluster_import: a dump's finished pods
and unmodelled kinds dropped, with that summary), then runs the controllers over the objects:
Deployments roll out a ReplicaSet, then every ReplicaSet, StatefulSet, DaemonSet and Job
creates its missing pods. Pods a controller already owns count, so a dump's pods are never
duplicated. Created objects follow their controller in the same document, so document numbers
in error messages still match the input. Deployments, DaemonSets and Jobs, which the loader
does not model further, are replaced by what they created; ReplicaSets and StatefulSets stay
(their selectors drive the default topology spreading).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.daemonset import expand_daemon_set
from scheduler_core.controllers.workloads.deployment import expand_deployment
from scheduler_core.controllers.workloads.job import expand_job
from scheduler_core.controllers.workloads.plan import Planned, WorkloadPlan, plan_workloads
from scheduler_core.controllers.workloads.replicaset import expand_replica_set
from scheduler_core.controllers.workloads.statefulset import expand_stateful_set
from scheduler_core.controllers.workloads.summary import (
    CREATED,
    DROPPED,
    KEPT,
    ScaleTarget,
    SummaryEntry,
    WorkloadSummary,
)

__all__ = ["expand_workloads", "WorkloadSummary", "SummaryEntry", "ScaleTarget",
           "CONTROLLER_KINDS", "Planned", "WorkloadPlan"]

# kind -> the apiVersions the controllers accept
CONTROLLER_KINDS: dict[str, tuple[str, ...]] = {
    "Deployment": ("apps/v1",),
    "ReplicaSet": ("apps/v1",),
    "StatefulSet": ("apps/v1",),
    "DaemonSet": ("apps/v1",),
    "Job": ("batch/v1",),
}
_CONSUMED = frozenset({"Deployment", "DaemonSet", "Job"})  # replaced by what they create
# Without a template these only lend their selector to the default topology spreading.
_SELECTOR_ONLY = frozenset({"ReplicaSet", "StatefulSet"})
_POD_CREATORS = {"ReplicaSet": expand_replica_set, "StatefulSet": expand_stateful_set,
                 "DaemonSet": expand_daemon_set, "Job": expand_job}


def _is_list(d: Any) -> bool:
    return isinstance(d, dict) and (d.get("kind") == "List" or (
        d.get("kind") is None and "items" in d and d.get("apiVersion") in (None, "v1")))


def _locate(documents: list[Any]) -> list[Located]:
    out: list[Located] = []
    for i, d in enumerate(documents, start=1):
        if _is_list(d):
            items = d.get("items")
            for j, it in enumerate(items if isinstance(items, list) else []):
                if isinstance(it, dict):
                    out.append(Located(i, f"items[{j}]", it))
        elif isinstance(d, dict):
            out.append(Located(i, "", d))
    return out


def _is_controller(o: Located) -> bool:
    return o.kind in CONTROLLER_KINDS and o.obj.get("apiVersion") in CONTROLLER_KINDS[o.kind]


def expand_workloads(docs: list[Any], summary: WorkloadSummary, source: str = "<input>",
                     check: Callable[[WorkloadPlan], None] | None = None,
                     ) -> tuple[list[Any], WorkloadSummary]:
    """The documents with every workload controller's pods added (see the module docstring)
    and a summary of what was kept, created and dropped. Raises ScenarioError naming the
    document and field when a controller cannot work from its manifest.

    `check` sees how many pods the input gives and each controller will create, before any
    is built, and raises to refuse (the loader's pod limit). `docs` and `summary` are what
    `normalize_dump` made of the input: the reduction of dumps is the loader's, which sits above
    the controllers."""
    objects = _locate(docs)
    controllers = []
    kept: list[tuple[str, str]] = []
    for o in objects:
        kind = o.kind
        if kind in CONTROLLER_KINDS and _is_controller(o):
            controllers.append(o)
        elif kind:
            # Located.name / Located.key, read from the metadata once.
            meta = o.obj.get("metadata") or {}
            name = str(meta.get("name") or "")
            if kind not in ("Node", "Namespace", "PriorityClass"):
                name = f'{str(meta.get("namespace") or "default")}/{name}'
            kept.append((kind, name))
    summary.add_kept(kept)
    given = sum(1 for o in objects if o.kind == "Pod")
    nodes = sum(1 for o in objects if o.kind == "Node")
    if not controllers:
        if check is not None:
            check(WorkloadPlan(None, given, [], nodes))
        return docs, summary

    ctx = ExpansionContext(objects, source)
    if check is not None:
        check(WorkloadPlan(ctx, given, plan_workloads(ctx, controllers), nodes))
    created: dict[int, list[dict[str, Any]]] = {}  # id(controller manifest) -> objects after it
    rollouts: list[Located] = []
    for o in controllers:
        if o.kind != "Deployment":
            continue
        new, outcome, target = expand_deployment(ctx, o)
        created[id(o.obj)] = new
        if target is not None:
            summary.scale_targets[o.key] = target
        summary.add(DROPPED, "Deployment", o.key, f"{outcome} (Deployments are expanded, not kept)")
        for rs in new:
            summary.add(CREATED, "ReplicaSet", f"{o.namespace}/{rs['metadata']['name']}",
                        f"by Deployment {o.name}")
            rollouts.append(Located(o.doc, o.path, rs))
    for o in [c for c in controllers if c.kind in _POD_CREATORS] + rollouts:
        if o.kind in _SELECTOR_ONLY and not (o.obj.get("spec") or {}).get("template"):
            summary.add(KEPT, o.kind, o.key, "no pod template: a selector for spreading only")
            continue
        pods, outcome = _POD_CREATORS[o.kind](ctx, o)
        created.setdefault(id(o.obj), []).extend(pods)
        for p in pods:
            summary.add(CREATED, p.get("kind", "Pod"), f"{o.namespace}/{p['metadata']['name']}",
                        f"by {o.kind} {o.name}")
        if any(o is r for r in rollouts):
            continue  # already listed as created by its Deployment
        if o.kind in _CONSUMED:
            summary.add(DROPPED, o.kind, o.key, f"{outcome} ({o.kind}s are expanded, not kept)")
        else:
            summary.add(KEPT, o.kind, o.key, outcome)
    return _rebuild(docs, created), summary


def _with_created(obj: dict[str, Any], created: dict[int, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The object (unless consumed) followed by what it created, recursively (RS -> pods)."""
    out: list[dict[str, Any]] = []
    if not (obj.get("kind") in _CONSUMED and obj.get("apiVersion") in CONTROLLER_KINDS[obj["kind"]]):
        out.append(obj)
    for child in created.get(id(obj), []):
        out.extend(_with_created(child, created))
    return out


def _rebuild(docs: list[Any], created: dict[int, list[dict[str, Any]]]) -> list[Any]:
    out: list[Any] = []
    for d in docs:
        if _is_list(d):
            items = d.get("items") if isinstance(d.get("items"), list) else []
            new_items: list[Any] = []
            for it in items:
                new_items.extend(_with_created(it, created) if isinstance(it, dict) else [it])
            out.append({**d, "items": new_items})
        elif isinstance(d, dict) and id(d) in created or (
                isinstance(d, dict) and d.get("kind") in _CONSUMED):
            objs = _with_created(d, created)
            out.append(objs[0] if len(objs) == 1 and objs[0] is d else
                       {"apiVersion": "v1", "kind": "List", "items": objs})
        else:
            out.append(d)
    return out
