"""A controller replacing a pod it lost during a run (an eviction): the ReplicaSet,
ReplicationController, Job and DaemonSet controllers create a new pod with a generated name,
the StatefulSet controller the same name again.

The new pod is built from the lost one's spec, which is its controller's template plus what the
API server and the scheduler added (nodeName, the admission plugins' priority): those are left
out so the new pod is admitted and scheduled afresh. A Deployment's current ReplicaSet uses its
recorded template (`ScaleTarget`). Pods without a controller are not replaced.
"""

from __future__ import annotations

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
