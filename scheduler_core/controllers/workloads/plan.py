"""How many pods each workload controller will create, counted before any pod is built.

Why: a controller's pods are built in memory one by one, so a `replicas: 1000000000` would cost
gigabytes before a limit on the total could refuse it. These counts are what the expanders will
create (replicas minus the pods a controller already owns, as they compute it), found from the
manifests alone in time proportional to the input, never to the numbers written in it. A
DaemonSet counts all nodes until `refine` matches them (`exact` False), since matching costs a
check per node. (A StatefulSet ordinal whose name a pod created earlier in the same load took
counts once too many: the counts may be over by such rare clashes, never under.) A malformed
manifest counts 0 here: its controller refuses it with the field named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.daemonset import eligible_nodes, target_node


@dataclass
class Planned:
    """The pods one controller will create: `pods`, from the manifest's `field` (the value the
    user lowers to create fewer), with `why` in words when the field alone does not say it."""

    where: Located
    field: str
    pods: int
    why: str
    exact: bool = True

    @property
    def path(self) -> str:
        """The field as the loader locates it (inside a List: `items[j].spec.replicas`)."""
        return ".".join(p for p in (self.where.path, self.field) if p)


def _count(value: Any, default: int) -> int:
    """A non-negative int32 field, `default` when unset, 0 when malformed (refused later, by
    the field's own check: an int32 past its range names the range, not the pod limit)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
        return 0
    return value


def _spec(o: Located) -> dict[str, Any]:
    spec = o.obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _has_template(o: Located) -> bool:
    template = _spec(o).get("template")
    return isinstance(template, dict) and isinstance(template.get("spec"), dict)


def plan_deployment(ctx: ExpansionContext, o: Located) -> Planned:
    """A new Deployment's ReplicaSet will get spec.replicas pods; one that owns ReplicaSets is
    not rolled out again (those ReplicaSets are planned themselves)."""
    if not _has_template(o) or ctx.owned("Deployment", o.namespace, o.name, kind="ReplicaSet"):
        return Planned(o, "spec.replicas", 0, "")
    want = _count(_spec(o).get("replicas"), 1)
    return Planned(o, "spec.replicas", want, "")


def plan_replica_set(ctx: ExpansionContext, o: Located) -> Planned:
    if not _has_template(o):
        return Planned(o, "spec.replicas", 0, "")
    want = _count(_spec(o).get("replicas"), 1)
    have = len(ctx.owned("ReplicaSet", o.namespace, o.name))
    todo = max(0, want - have)
    return Planned(o, "spec.replicas", todo,
                   f"{want:,} replicas, {have:,} existing" if have else "")


def plan_stateful_set(ctx: ExpansionContext, o: Located) -> Planned:
    """Ordinals start..start+replicas-1 whose pod name is not taken (found by reading the taken
    names, not by walking the ordinals)."""
    if not _has_template(o):
        return Planned(o, "spec.replicas", 0, "")
    spec = _spec(o)
    want = _count(spec.get("replicas"), 1)
    start = _count((spec.get("ordinals") or {}).get("start") if isinstance(spec.get("ordinals"), dict)
                   else None, 0)
    pattern = re.compile(re.escape(o.name) + r"-(0|[1-9][0-9]*)")
    have = 0
    for name in ctx.names("Pod", o.namespace):
        m = pattern.fullmatch(name)
        if m and start <= int(m.group(1)) < start + want:
            have += 1
    todo = max(0, want - have)
    return Planned(o, "spec.replicas", todo,
                   f"{want:,} replicas, {have:,} existing" if have else "")


def plan_daemon_set(ctx: ExpansionContext, o: Located) -> Planned:
    """At most one pod per node: the nodes' count, until `refine` matches them."""
    if not _has_template(o):
        return Planned(o, "spec.template", 0, "")
    nodes = len(ctx.nodes)
    return Planned(o, "spec.template", nodes, f"one per node, {nodes:,} nodes", exact=False)


def refine_daemon_set(ctx: ExpansionContext, plan: Planned) -> Planned:
    """The exact count: eligible nodes without one of the set's pods. Costs a match per node,
    so it is done only when the upper bound alone would be refused."""
    o = plan.where
    try:
        eligible = eligible_nodes(_spec(o)["template"]["spec"], ctx.nodes)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError):
        return plan  # malformed: the controller names the field
    covered = {target_node(p) for p in ctx.owned("DaemonSet", o.namespace, o.name)}
    names = [str((n.get("metadata") or {}).get("name", "")) for n in eligible]
    todo = sum(1 for n in names if n not in covered)
    return Planned(o, plan.field, todo, f"one per eligible node, {len(names):,} of "
                                        f"{len(ctx.nodes):,} nodes eligible")


def plan_job(ctx: ExpansionContext, o: Located) -> Planned:
    """min(parallelism, completions - succeeded) active pods, minus those the Job owns."""
    spec = _spec(o)
    if not _has_template(o) or spec.get("suspend") is True:
        return Planned(o, "spec.parallelism", 0, "")
    parallelism = _count(spec.get("parallelism"), 1)
    completions = spec.get("completions")
    status = o.obj.get("status") if isinstance(o.obj.get("status"), dict) else {}
    succeeded = _count(status.get("succeeded"), 0)
    want = parallelism if completions is None else min(parallelism,
                                                        max(0, _count(completions, 0) - succeeded))
    have = len(ctx.owned("Job", o.namespace, o.name))
    field = "spec.parallelism" if want == parallelism else "spec.completions"
    why = f"parallelism {parallelism:,}, completions {completions:,}" if isinstance(completions, int) \
        else ""
    return Planned(o, field, max(0, want - have), why + (f", {have:,} active" if have else ""))


@dataclass
class WorkloadPlan:
    """Every controller's plan, with the pods and nodes the input gives itself (Pod objects, a
    dump's owned pods included), handed to the loader's limit check before anything is built."""

    ctx: ExpansionContext | None  # None when there are no controllers
    given_pods: int
    plans: list[Planned]
    given_nodes: int = 0

    @property
    def total(self) -> int:
        return self.given_pods + sum(p.pods for p in self.plans)

    def refine(self, limit: int | None = None) -> None:
        """Replace upper bounds by exact counts where that is worth a match per node, in
        document order; with `limit`, stop once the exact counts alone pass it (the rest stay
        upper bounds: the refusal is certain, and need not cost a match per node each)."""
        if self.ctx is None:
            return
        exact = self.given_pods + sum(p.pods for p in self.plans if p.exact)
        for i, p in enumerate(self.plans):
            if limit is not None and exact > limit:
                return
            if p.where.kind == "DaemonSet" and not p.exact:
                self.plans[i] = refine_daemon_set(self.ctx, p)
                exact += self.plans[i].pods if self.plans[i].exact else 0

    @property
    def exact(self) -> bool:
        return all(p.exact for p in self.plans)


PLANNERS = {"Deployment": plan_deployment, "ReplicaSet": plan_replica_set,
            "StatefulSet": plan_stateful_set, "DaemonSet": plan_daemon_set, "Job": plan_job}


def plan_workloads(ctx: ExpansionContext, controllers: list[Located]) -> list[Planned]:
    """One plan per controller, in document order (malformed ones count 0)."""
    out: list[Planned] = []
    for o in controllers:
        try:
            out.append(PLANNERS[o.kind](ctx, o))
        except (AttributeError, TypeError, KeyError, ValueError, IndexError):
            out.append(Planned(o, "spec", 0, ""))
    return out


@dataclass
class PlannedClaims:
    """Claims one source will have created: `claims` of `noun` (PersistentVolumeClaims or
    ResourceClaims), from the manifest's `field`, with `why` saying how they multiply."""

    where: Located | None  # None: the Pod objects and timeline pods given, taken together
    field: str
    claims: int
    noun: str
    why: str

    @property
    def path(self) -> str:
        return ".".join(p for p in ((self.where.path if self.where else ""), self.field) if p)


def pod_claim_templates(pod_spec: Any, made: Any = None) -> tuple[int, int]:
    """(ResourceClaims, PersistentVolumeClaims) one pod's templates will have created: its
    `spec.resourceClaims` naming a ResourceClaimTemplate (the resourceclaim controller, unless the
    pod's status already names the claim, `made`), its ephemeral volumes' volumeClaimTemplate (the
    ephemeral volume controller). Malformed entries count 0: the loader refuses them located."""
    if not isinstance(pod_spec, dict) or (pod_spec.get("resourceClaims") is None
                                          and pod_spec.get("volumes") is None):
        return 0, 0  # nothing below would count (most pods: a quick answer)
    done = set()
    for s in made if isinstance(made, list) else []:
        if isinstance(s, dict) and s.get("resourceClaimName"):
            done.add(s.get("name"))
    claims = pod_spec.get("resourceClaims")
    rc = sum(1 for c in claims if isinstance(c, dict) and c.get("resourceClaimTemplateName")
             and c.get("name") not in done) if isinstance(claims, list) else 0
    volumes = pod_spec.get("volumes")
    pvc = sum(1 for v in volumes if isinstance(v, dict) and isinstance(v.get("ephemeral"), dict)
              and v["ephemeral"].get("volumeClaimTemplate")) if isinstance(volumes, list) else 0
    return rc, pvc


def plan_claims(plan: Planned) -> list[PlannedClaims]:
    """The claims a planned workload's pods bring: per pod, each volumeClaimTemplate of a
    StatefulSet and each template claim of the pod template (counted, never built)."""
    if plan.pods <= 0:
        return []
    spec = _spec(plan.where)
    template = spec.get("template")
    pod_spec = template.get("spec") if isinstance(template, dict) else None
    rc, eph = pod_claim_templates(pod_spec)
    out: list[PlannedClaims] = []
    n = plan.pods
    if plan.where.kind == "StatefulSet":
        vct = spec.get("volumeClaimTemplates")
        t = len(vct) if isinstance(vct, list) else 0
        if t:
            out.append(PlannedClaims(plan.where, "spec.volumeClaimTemplates", n * t, "PersistentVolumeClaims",
                                     f"{n:,} pods x {t:,} volumeClaimTemplates"))
    if rc:
        out.append(PlannedClaims(plan.where, "spec.template.spec.resourceClaims", n * rc, "ResourceClaims",
                                 f"{n:,} pods x {rc:,} claims from a ResourceClaimTemplate"))
    if eph:
        out.append(PlannedClaims(plan.where, "spec.template.spec.volumes", n * eph, "PersistentVolumeClaims",
                                 f"{n:,} pods x {eph:,} ephemeral volumes"))
    return out
