"""scaleDeployment: {"action": "scaleDeployment", "name": ..., "namespace": ..., "replicas": N}.
The Deployment's ReplicaSet controller then creates or deletes pods on the run's cluster (see
scheduler_core.controllers.workloads.scale), each an ordinary pod add/delete event for the
scheduler. A controller's step, not one API call: the spec takes the whole live and due paths."""

from __future__ import annotations

from typing import Any, Protocol

from scheduler_core.actions.names import Ref
from scheduler_core.actions.spec import ActionSpec, ParseContext
from scheduler_core.api.errors import ActionError, ScenarioError
from scheduler_core.api.scenario import TimelineAction
from scheduler_core.controllers.workloads.plan import pod_claim_templates
from scheduler_core.controllers.workloads.scale import owned_pods, pods_to_create, pods_to_delete
from scheduler_core.loader.limits import Limits


class Simulation(Protocol):
    """What the action needs of scheduler_core.simulation.Simulation (which calls it)."""

    scenario: Any
    scheduler: Any
    sink: Any
    clock: Any

    def apply_action(self, action: str, params: dict[str, Any]) -> None: ...

    def mark_changed(self) -> None: ...

ACTION = "scaleDeployment"
DELETED_BY = "ReplicaSetController"
# Live actions are numbered by their place in a run's log; timeline scale actions count from
# here, so the two never derive the same pod names or uids.
TIMELINE_SCALE_INDEX = 1_000_000


def _params(obj: dict[str, Any]) -> tuple[str, str, int]:
    def err(field: str, reason: str) -> ScenarioError:
        return ScenarioError(reason, file="<action>", kind=ACTION, field=field)

    extra = sorted(set(obj) - {"action", "name", "namespace", "replicas"})
    if extra:
        raise err(extra[0], f'unknown field for action "{ACTION}"')
    name, namespace, replicas = obj.get("name"), obj.get("namespace") or "default", obj.get("replicas")
    if not isinstance(name, str) or not name:
        raise err("name", "Required value: the Deployment's name")
    if not isinstance(namespace, str):
        raise err("namespace", f"expected a string, got {namespace!r}")
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise err("replicas", f"Invalid value: {replicas!r}: must be a non-negative integer")
    if replicas > 2**31 - 1:  # a Deployment's replicas are an int32
        raise err("replicas", f"Invalid value: {replicas}: out of range for int32")
    return name, namespace, replicas


def scale_deployment(sim: Simulation, obj: dict[str, Any], index: int,
                     limits: Limits | None = None) -> TimelineAction:
    """Validate and apply the action now; ActionError if the Deployment is unknown, or if the
    pods to create would take the cluster past `limits` (counted before any is made)."""
    name, namespace, replicas = _params(obj)
    summary = sim.scenario.load_summary
    target = summary.scale_targets.get(f"{namespace}/{name}") if summary is not None else None
    if target is None:
        raise ActionError(f'Deployment "{namespace}/{name}" does not exist in this scenario')
    cluster = sim.scheduler.cluster
    current = owned_pods(list(cluster.pods.values()), target)
    if limits is not None and len(cluster.pods) + replicas - len(current) > limits.max_pods:
        total = len(cluster.pods) + replicas - len(current)
        raise ActionError(f"replicas: {limits.refusal('max_pods', f'too many pods ({total:,})')}")
    if limits is not None and replicas > len(current):
        # The new pods' template claims (ResourceClaims, ephemeral volumes' PVCs) are made by
        # controllers as the pods appear: counted here, with the claims the run holds now.
        made = (replicas - len(current)) * sum(pod_claim_templates(target.template.get("spec")))
        have = len(cluster.resource_claims) + len(cluster.storage.pvcs)
        if made and have + made > limits.max_claims:
            what = f"too many claims ({have + made:,}: {made:,} made from the pod template's claim templates)"
            raise ActionError(f"replicas: {limits.refusal('max_claims', what)}")
    created: list[str] = []
    deleted: list[str] = []
    sim.sink.emit("cluster_action", action=ACTION, params={"name": name, "namespace": namespace,
                                                           "replicas": replicas})
    if replicas > len(current):
        taken = {k.split("/", 1)[1] for k in cluster.records if k.startswith(namespace + "/")}
        manifests = pods_to_create(target, replicas - len(current), taken,
                                   f"scale/{namespace}/{target.replica_set}/{index}")
        from scheduler_core.loader import parse_action

        for i, manifest in enumerate(manifests):
            act = parse_action({"action": "addPod", "pod": manifest}, sim.scenario,
                               at=sim.clock.now(), index=index * 1000 + i)
            sim.apply_action("addPod", act.params)
            created.append(act.params["pod"].key)
    else:
        for pod in pods_to_delete(current, len(current) - replicas):
            sim.apiserver.delete_pod(pod.key, by=DELETED_BY)
            deleted.append(pod.key)
        sim.mark_changed()
    return TimelineAction(time=sim.clock.now(), action=ACTION,
                          params={"name": name, "namespace": namespace, "replicas": replicas,
                                  "created": created, "deleted": deleted})


def deployments_view(sim: Simulation) -> list[dict[str, Any]]:
    """The Deployments this action can scale (part of `Simulation.view()`), with their current
    ReplicaSet and how many active pods it controls now."""
    summary = sim.scenario.load_summary
    targets = summary.scale_targets if summary is not None else {}
    if not targets:
        return []
    active: dict[tuple[str, str], int] = {}
    for pod in sim.scheduler.cluster.pods.values():
        if pod.deletion_timestamp is None:
            for o in pod.owner_references:
                if o.controller and o.kind == "ReplicaSet":
                    active[(pod.namespace, o.name)] = active.get((pod.namespace, o.name), 0) + 1
    return [{"key": key, "namespace": t.namespace, "name": t.deployment, "replicaSet": t.replica_set,
             "replicas": active.get((t.namespace, t.replica_set), 0)}
            for key, t in sorted(targets.items())]


class ScaleDeployment(ActionSpec):
    name = ACTION
    fields = ("name", "namespace", "replicas")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        """The Deployment's `name`, `namespace` (default "default") and the new `replicas`, a
        non-negative integer as in the Deployment's spec."""
        name = ctx.string(m, "name", required="the Deployment's name")
        namespace = ctx.string(m, "namespace") or "default"
        if m.get("replicas") is None:
            raise ctx.err("replicas", "Required value")
        replicas = ctx.r.integer(m.get("replicas"), f"{ctx.path}.replicas")
        if replicas < 0:
            raise ctx.err("replicas", f"Invalid value: {replicas}: must be greater than or equal to 0")
        return {"name": name, "namespace": namespace, "replicas": replicas}

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        # The pods it creates are named at run time: not tracked by the timeline's replay.
        return (Ref("Deployment", f"{params['namespace']}/{params['name']}", "name"),)

    def live(self, sim: Any, obj: dict[str, Any], index: int, limits: Limits | None) -> TimelineAction:
        return scale_deployment(sim, obj, index, limits=limits)

    def due(self, sim: Any, action: TimelineAction) -> bool:
        """The same controller step as the live action. Its index (for the created pods' names
        and uids) is the action's place among the timeline's scale actions, offset past any live
        action's, so a replay names the same pods."""
        sim._timeline_scales += 1
        scale_deployment(sim, {"action": ACTION, "name": action.params["name"],
                               "namespace": action.params["namespace"],
                               "replicas": action.params["replicas"]},
                         TIMELINE_SCALE_INDEX + sim._timeline_scales)
        return True


SPEC = ScaleDeployment()
