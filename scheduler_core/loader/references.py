"""References between core objects that the API server does not check, loaded as it loads them.

The API server validates each object alone; only admission plugins look at other objects (the
Priority plugin refuses an unknown priorityClassName, and the loader does too: admission.py).
A pod's spec.nodeName may name any node: creating a pod already bound to a node that does not
exist succeeds. The scheduler then ignores the pod for scheduling (it is assigned), and its
cache files the pod under a node it has no Node object for, which no snapshot includes: the pod
counts on no node until a node of that name is added, which adopts it
(`backend/cache/cache.py`). The loader accepts such a pod with a warning saying so. (Upstream's pod
garbage collector, in kube-controller-manager, deletes such an orphan some 40 s later; the
playground runs no pod garbage collector for it, which the warning says too.)

docs/loader-references.md lists every cross-object check and upstream's verdict on it.
"""

from __future__ import annotations

from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Pod
from scheduler_core.loader.reader import FieldReader

__all__ = ["unknown_node_warnings"]


def unknown_node_warnings(sc: Scenario, pod_raws: list[tuple[FieldReader, Pod]]) -> list[LoadWarning]:
    """One warning per pod bound (spec.nodeName) to a node the scenario does not define."""
    node_names = {n.name for n in sc.nodes}
    warnings: list[LoadWarning] = []
    for r, pod in pod_raws:
        if not pod.node_name or pod.node_name in node_names:
            continue
        loc = r.doc
        warnings.append(LoadWarning(
            f'node "{pod.node_name}" is not in the scenario; the API server accepts the binding, '
            "and the scheduler never schedules the pod (it is assigned) and counts it on no node "
            "until a node of that name is added; upstream's pod garbage collector would delete it "
            "about 40 s later, which the playground does not run",
            file=loc.file, document=loc.index, kind=loc.kind, name=loc.name, field="spec.nodeName",
            category="reference"))
    return warnings
