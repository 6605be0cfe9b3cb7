"""A controller replacing a pod it lost during a run (an eviction): the ReplicaSet,
ReplicationController, Job and DaemonSet controllers create a new pod with a generated name,
the StatefulSet controller the same name again.

The new pod is built from the lost one's spec, which is its controller's template plus what the
API server and the scheduler added (nodeName, the admission plugins' priority): those are left
out so the new pod is admitted and scheduled afresh. A Deployment's current ReplicaSet uses its
recorded template (`ScaleTarget`). Pods without a controller are not replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.api.export import pod_manifest
from scheduler_core.api.types import Pod
from scheduler_core.controllers.workloads.naming import NameGenerator, pods_prefix
from scheduler_core.controllers.workloads.summary import ScaleTarget
from scheduler_core.controllers.workloads.template import owner_reference, pod_from_template

REPLACING_KINDS = ("ReplicaSet", "ReplicationController", "Job", "DaemonSet", "StatefulSet")


def controller_of(pod: Pod) -> Any:
    return next((o for o in pod.owner_references if o.controller), None)


def replacement_manifest(pod: Pod, targets: dict[str, ScaleTarget], taken: set[str], seed: str) -> dict[str, Any] | None:
    """The Pod manifest the pod's controller creates in its place, or None (no controller, or
    one that does not replace pods). `targets`: the scenario's Deployments (load summary),
    `taken`: names used in the namespace (a generated name never repeats one)."""
    ref = controller_of(pod)
    if ref is None or ref.kind not in REPLACING_KINDS:
        return None
    target = next((t for t in targets.values()
                   if t.namespace == pod.namespace and t.replica_set == ref.name and ref.kind == "ReplicaSet"), None)
    if target is not None:
        gen = NameGenerator(seed, taken)
        prefix = pods_prefix(target.replica_set)
        owner = owner_reference("apps/v1", "ReplicaSet", target.replica_set, target.replica_set_uid)
        return pod_from_template(target.template, name=gen.generate(prefix), namespace=pod.namespace,
                                 owner=owner, generate_name=prefix)
    manifest = pod_manifest(pod)
    spec = manifest["spec"]
    spec.pop("nodeName", None)
    spec.pop("priority", None)  # Priority admission sets them again from priorityClassName
    spec.pop("preemptionPolicy", None)
    manifest.pop("status", None)
    meta = manifest["metadata"]
    if ref.kind != "StatefulSet":
        prefix = pods_prefix(ref.name)
        meta["name"] = NameGenerator(seed, taken).generate(prefix)
        meta["generateName"] = prefix
    return manifest


def create_replacement(sim: Any, pod: Pod, taken_in: Callable[[str], set[str]], *, origin: str,
                       index_base: int) -> Pod | None:
    """Create now, through the API server, the pod the evicted `pod`'s controller puts in its
    place (a ReplicaSet does not count a terminating pod); None when there is none yet: no
    replacing controller, or a StatefulSet pod, which comes back under its own name once the old
    one is gone. Shared by every eviction that leaves a controller short (the descheduler's, a
    drain's), so both replace a pod the same way.

    `taken_in(namespace)`: the names ever used there, which a generated name never repeats (the
    new name is added to it); `origin` seeds the name generator ("descheduler", "drain") and
    `index_base` places the creation in the run's log after the caller's other indexes. `sim`
    turns the manifest into a Pod (`Simulation.pod_from_manifest`: the addPod action's parser, so
    it is admitted and defaulted as a scenario's pod is; the loader sits above the controllers,
    so the simulation, above both, does the parsing); ScenarioError when it no longer loads (a
    template the loader accepted once always should)."""
    cluster = sim.scheduler.cluster
    summary = sim.scenario.load_summary
    targets = summary.scale_targets if summary is not None else {}
    if pod.key in cluster.pods and not any(o.controller and o.kind != "StatefulSet" for o in pod.owner_references):
        return None
    taken = taken_in(pod.namespace)
    manifest = replacement_manifest(pod, targets, taken, f"{origin}/{pod.key}/{len(cluster.all_pods)}")
    if manifest is None:
        return None
    new: Pod = sim.pod_from_manifest(manifest, index=index_base + len(cluster.all_pods))
    if new.key in cluster.pods:
        return None
    sim.apiserver.create_pod(new)
    taken.add(new.name)
    return new
