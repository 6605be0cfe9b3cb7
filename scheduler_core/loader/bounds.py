"""The node and pod limits, checked before the work they bound.

Why here and not after building: a workload's pods are built one by one, so a Deployment with
`replicas: 1000000000` would cost gigabytes before a count of built pods could refuse it. The
workload controllers first say how many pods each will create (`WorkloadPlan`); this module adds
the Pod objects given and every pod or node a Timeline adds, and refuses the scenario, naming
the document and field to lower, before a single object is built. The same counts are checked
again on the built objects (`build.check_limits`), which costs nothing more.

When several workloads together pass the limit, the one creating the most pods is named (the
first such in document order): lowering it is what helps most.

Claims made from templates are bounded the same way (`max_claims`): a StatefulSet's
volumeClaimTemplates and a pod template's ephemeral volumes (PersistentVolumeClaims) and
ResourceClaimTemplate references (ResourceClaims, made by the resourceclaim controller during the
run) multiply by the pods, so `replicas: 20000` with 50 templates is a million claims within the
pod limit. They are counted from the manifests (pods x templates) once the pods passed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads.plan import PlannedClaims, WorkloadPlan, plan_claims, pod_claim_templates
from scheduler_core.loader.limits import Limits

__all__ = ["timeline_additions", "limit_check"]

# Replicas past an int32 are not counted: the action's own check refuses them with the range.
_INT32_MAX = 2**31 - 1


def timeline_additions(timelines: Iterable[Any]) -> tuple[int, int]:
    """(nodes, pods) the Timeline documents can add: one per addNode / addPod, and for each
    Deployment a scaleDeployment names, the most replicas it is scaled to (an upper bound: its
    existing pods count again; scaling the same Deployment twice never adds both)."""
    nodes = pods = 0
    scaled: dict[tuple[Any, Any], int] = {}
    for timeline in timelines:
        actions = timeline.get("actions") if isinstance(timeline, dict) else None
        for a in actions if isinstance(actions, list) else []:
            if not isinstance(a, dict):
                continue
            if a.get("action") == "addNode":
                nodes += 1
            elif a.get("action") == "addPod":
                pods += 1
            elif a.get("action") == "scaleDeployment":
                replicas = a.get("replicas")
                if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas <= _INT32_MAX:
                    key = (str(a.get("namespace") or "default"), str(a.get("name")))
                    scaled[key] = max(scaled.get(key, 0), replicas)
    return nodes, pods + sum(scaled.values())


def _timelines(documents: list[Any]) -> list[tuple[int, str, dict[str, Any]]]:
    """(document number, path inside it, the Timeline) for each Timeline of the input."""
    out: list[tuple[int, str, dict[str, Any]]] = []
    for n, d in enumerate(documents, start=1):
        if not isinstance(d, dict):
            continue
        if d.get("kind") == "Timeline":
            out.append((n, "", d))
        elif isinstance(d.get("items"), list):
            out += [(n, f"items[{j}]", it) for j, it in enumerate(d["items"])
                    if isinstance(it, dict) and it.get("kind") == "Timeline"]
    return out


def _largest_scale(timelines: list[tuple[int, str, dict[str, Any]]]) -> tuple[int, int, str] | None:
    """(replicas, document, field) of the timeline's largest scaleDeployment, if any."""
    best: tuple[int, int, str] | None = None
    for doc, path, timeline in timelines:
        actions = timeline.get("actions")
        for i, a in enumerate(actions if isinstance(actions, list) else []):
            if isinstance(a, dict) and a.get("action") == "scaleDeployment":
                replicas = a.get("replicas")
                if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas <= _INT32_MAX \
                        and (best is None or replicas > best[0]):
                    best = (replicas, doc, ".".join(p for p in (path, f"actions[{i}].replicas") if p))
    return best


def _given_claims(documents: list[Any], timelines: list[tuple[int, str, dict[str, Any]]]) -> int:
    """Claims the controllers will make for the Pod objects given and the timeline's addPods."""
    pods: list[Any] = []
    for d in documents:
        if isinstance(d, dict) and d.get("kind") == "Pod":
            pods.append(d)
        elif isinstance(d, dict) and isinstance(d.get("items"), list):
            pods += [it for it in d["items"] if isinstance(it, dict) and it.get("kind") == "Pod"]
    for _, _, timeline in timelines:
        actions = timeline.get("actions")
        pods += [a.get("pod") for a in (actions if isinstance(actions, list) else [])
                 if isinstance(a, dict) and a.get("action") == "addPod" and isinstance(a.get("pod"), dict)]
    total = 0
    for p in pods:
        status = p.get("status") if isinstance(p.get("status"), dict) else {}
        total += sum(pod_claim_templates(p.get("spec"), status.get("resourceClaimStatuses")))
    return total


def _check_claims(plan: WorkloadPlan, given: int, source: str, limits: Limits) -> None:
    """Refuse when the claims made from templates would pass `max_claims`, naming the largest."""
    if given > limits.max_claims:
        raise ScenarioError(limits.refusal("max_claims", f"too many claims ({given:,} made from the pods' "
                                                         "templates)"), file=source)
    planned: list[PlannedClaims] = [c for p in plan.plans for c in plan_claims(p)]
    total = given + sum(c.claims for c in planned)
    if total <= limits.max_claims:
        return
    if not plan.exact:  # DaemonSets counted one pod per node: match them, then count again
        plan.refine()
        planned = [c for p in plan.plans for c in plan_claims(p)]
        total = given + sum(c.claims for c in planned)
        if total <= limits.max_claims:
            return
    worst = max(planned, key=lambda c: c.claims)
    o = worst.where
    assert o is not None
    what = (f"too many claims: this {o.kind} would create {worst.claims:,} {worst.noun} ({worst.why})"
            + ("" if total == worst.claims else f", {total:,} claims in the scenario"))
    raise ScenarioError(limits.refusal("max_claims", what), file=source, document=o.doc, kind=o.kind,
                        name=o.key if o.name else None, field=worst.path)


def limit_check(documents: list[Any], source: str, limits: Limits) -> Callable[[WorkloadPlan], None]:
    """The check `expand_workloads` runs on its plan: raises ScenarioError when the nodes or the
    pods (given, created by controllers, added by the timeline) would pass `limits`, then when
    the claims made from templates for those pods would."""
    timelines = _timelines(documents)
    added_nodes, added_pods = timeline_additions(t for _, _, t in timelines)
    given_claims = _given_claims(documents, timelines)

    def check(plan: WorkloadPlan) -> None:
        check_pods(plan)
        _check_claims(plan, given_claims, source, limits)

    def check_pods(plan: WorkloadPlan) -> None:
        nodes = plan.given_nodes + added_nodes
        if nodes > limits.max_nodes:
            raise ScenarioError(limits.refusal("max_nodes", f"too many nodes ({nodes:,})"),
                                file=source)
        fixed = plan.given_pods + added_pods
        if fixed > limits.max_pods:
            what = f"too many pods ({fixed + sum(p.pods for p in plan.plans):,})"
            scale = _largest_scale(timelines)
            if scale is not None and scale[0] > limits.max_pods // 2:  # the scale is the cause
                raise ScenarioError(limits.refusal("max_pods", what), file=source,
                                    document=scale[1], kind="Timeline", field=scale[2])
            raise ScenarioError(limits.refusal("max_pods", what), file=source)
        if fixed + sum(p.pods for p in plan.plans) <= limits.max_pods:
            return
        plan.refine(limits.max_pods - added_pods)
        total = fixed + sum(p.pods for p in plan.plans)
        if total <= limits.max_pods:
            return
        # Name the workload creating the most pods (counted exactly where some are not).
        exact = [p for p in plan.plans if p.exact]
        worst = max(exact or plan.plans, key=lambda p: p.pods)  # max() keeps the first of equals
        counted = total if plan.exact else fixed + sum(p.pods for p in exact)
        o = worst.where
        what = (f"too many pods: this {o.kind} would create {worst.pods:,} pods"
                + (f" ({worst.why})" if worst.why else "")
                + ("" if counted == worst.pods else
                   f", {'' if plan.exact else 'at least '}{counted:,} in the scenario"))
        raise ScenarioError(limits.refusal("max_pods", what), file=source, document=o.doc,
                            kind=o.kind, name=o.key if o.name else None, field=worst.path)

    return check
