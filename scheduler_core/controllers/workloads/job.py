"""The Job controller at load time: the active pods a Job starts with.

`min(parallelism, completions - succeeded)` pods (parallelism defaults to 1; completions unset
means parallelism pods), none while suspended. The apiserver's generated selector labels
(`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` and their legacy forms)
are on every pod; Indexed jobs name pods `<job>-<index>-<5 characters>` with the completion
index as annotation, label and hostname.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.controllers.workloads.context import ExpansionContext, Located
from scheduler_core.controllers.workloads.naming import NameGenerator, object_uid, pods_prefix
from scheduler_core.controllers.workloads.template import (
    checked_template,
    owner_reference,
    pod_from_template,
)

CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"


def _count(ctx: ExpansionContext, where: Located, field: str, value: Any, default: int | None,
           ) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ctx.error(where, field, f"Invalid value: {value!r}: must be a non-negative integer")
    if value > 2**31 - 1:  # parallelism, completions, backoffLimit: int32 in the API
        shown = str(value) if value.bit_length() < 128 else f"an integer of {len(str(value)):,} digits"
        raise ctx.error(where, field, f"Invalid value: {shown}: out of range for int32")
    return value


def expand_job(ctx: ExpansionContext, where: Located) -> tuple[list[dict[str, Any]], str]:
    spec = where.obj.get("spec") or {}
    manual = spec.get("manualSelector") is True
    template = checked_template(ctx, where, selector_required=manual)
    parallelism = _count(ctx, where, "spec.parallelism", spec.get("parallelism"), 1) or 0
    completions = _count(ctx, where, "spec.completions", spec.get("completions"), None)
    succeeded = _count(ctx, where, "status.succeeded",
                       (where.obj.get("status") or {}).get("succeeded"), 0) or 0
    if spec.get("suspend") is True:
        return [], "suspended; no pods created"
    want = parallelism if completions is None else min(parallelism, max(0, completions - succeeded))
    existing = ctx.owned("Job", where.namespace, where.name)
    todo = want - len(existing)
    if todo <= 0:
        return [], f"{len(existing)} active pods kept; none created"
    uid = object_uid("Job", where.obj)
    labels = {} if manual else {CONTROLLER_UID: uid, JOB_NAME: where.name,
                                LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: where.name}
    owner = owner_reference("batch/v1", "Job", where.name, uid)
    gen = NameGenerator(f"Job/{where.key}", ctx.names("Pod", where.namespace))
    indexed = spec.get("completionMode") == "Indexed"
    used_indexes = {((p.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX)
                    for p in existing}
    pods: list[dict[str, Any]] = []
    index = 0
    for _ in range(todo):
        extra_labels = dict(labels)
        annotations: dict[str, str] = {}
        prefix = pods_prefix(where.name)
        if indexed:
            while str(index) in used_indexes:
                index += 1
            extra_labels[COMPLETION_INDEX] = annotations[COMPLETION_INDEX] = str(index)
            prefix = f"{where.name}-{index}-"
            index += 1
        pod = pod_from_template(template, name=gen.generate(prefix), namespace=where.namespace,
                                owner=owner, labels=extra_labels, annotations=annotations,
                                generate_name=prefix)
        pod["metadata"]["finalizers"] = [*pod["metadata"].get("finalizers", []), TRACKING_FINALIZER]
        if indexed:
            pod["spec"].setdefault("hostname", prefix[:-1])
        ctx.register(pod)
        pods.append(pod)
    return pods, f"created {len(pods)} pods (parallelism {parallelism})"
