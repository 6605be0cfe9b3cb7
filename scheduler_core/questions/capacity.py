"""How many more copies of a pod fit the cluster as it is, and what stops the next one.

The question kubernetes-sigs/cluster-capacity answers, asked of this engine: copies of one pod
are created one at a time through the simulated API server (the `addPod` live action, so
admission, claims and every informer see them as they would see any new pod), and each is left
to the real scheduling loop until the run settles. The first copy the scheduler does not bind
ends the count; its last FailedScheduling message, verbatim, is the answer to "what stops the
next one". As cluster-capacity does, copies are named `<name>-<i>` counting from 0, so the copy
that did not fit is `<name>-<count>`.

The cluster is the scenario at time 0 played to settled first (its pending pods get their
chance before any copy); its Timeline is not played, since the question is about the cluster
as it is. The pod may be given as a Pod or as a Deployment / ReplicaSet (its pod template, with
the workload's name and namespace). A template with topologySpreadConstraints needs nothing
special: each copy carries the template's labels, so the constraint counts the copies already
placed, as N replicas of a Deployment would.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scheduler_core.api.errors import ActionError, ScenarioError
from scheduler_core.api.types import Pod
from scheduler_core.simulation import Simulation

__all__ = ["CapacityResult", "PodTemplate", "count_capacity", "parse_pod_template", "read_pod_template"]

# Live actions are numbered from here, past any a scenario could hold, so each copy's uid and
# creation index are its own.
COPY_INDEX = 2_000_000
WORKLOAD_KINDS = ("Deployment", "ReplicaSet")


@dataclass
class PodTemplate:
    """The pod to copy, as a Pod manifest, and where it came from (for located errors)."""

    manifest: dict[str, Any]
    file: str
    document: int
    kind: str  # "Pod" or the workload kind it was taken from
    name: str  # namespace/name of the document
    field_prefix: str  # "" for a Pod, "spec.template." for a workload's template

    @property
    def base_name(self) -> str:
        return str(self.manifest["metadata"]["name"])


@dataclass
class CapacityResult:
    """The answer: `count` copies were bound (`per_node`: how many on each node, in node
    name order); `stopped_by` is the copy that was not (None when `max` was reached first) and
    `stop_reason` its last FailedScheduling message, or why it was never tried."""

    pod: str
    count: int
    per_node: dict[str, int] = field(default_factory=dict)
    stopped_by: str | None = None
    stop_reason: str | None = None
    max: int | None = None
    budget_spent: bool = False  # stopped by the caller's budget: at least `count` fit

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "count": self.count, "per_node": self.per_node,
                "stopped_by": self.stopped_by, "stop_reason": self.stop_reason, "max": self.max}

    def to_text(self) -> str:
        """The terminal's answer, in cluster-capacity's order: the count, the reason, the spread."""
        lines = [f"{self.count} cop{'y' if self.count == 1 else 'ies'} of {self.pod} fit."]
        if self.stopped_by is not None:
            lines.append(f"Stopped by {self.stopped_by}: {self.stop_reason}")
        elif self.max is not None:
            lines.append(f"Stopped at --max {self.max}: more may fit.")
        if self.per_node:
            lines.append("Per node:")
            width = max(len(n) for n in self.per_node)
            lines += [f"  {n:<{width}}  {c}" for n, c in self.per_node.items()]
        return "\n".join(lines)


def _err(tpl_file: str, reason: str, document: int | None = None, kind: str | None = None,
         name: str | None = None, fld: str | None = None, line: int | None = None) -> ScenarioError:
    return ScenarioError(reason, file=tpl_file, document=document, kind=kind, name=name, field=fld, line=line)


def read_pod_template(path: str) -> PodTemplate:
    """The one Pod, Deployment or ReplicaSet of the file at `path`, as a Pod manifest.
    Raises ScenarioError naming the file, document and field when it is not exactly one of
    those, or its pod could not be copied through the scheduler (bound, or gated)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise _err(path, f"cannot read file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise _err(path, "not UTF-8 text") from None
    return parse_pod_template(text, path)


def parse_pod_template(text: str, path: str = "<pod>") -> PodTemplate:
    """`read_pod_template` on text already read (`path` names it in errors)."""
    try:
        docs = [d for d in yaml.safe_load_all(text)]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise _err(path, f"invalid YAML: {getattr(e, 'problem', None) or e}",
                   line=(mark.line + 1) if mark is not None else None) from None
    found = [(i, d) for i, d in enumerate(docs, start=1) if d is not None]
    if len(found) != 1:
        raise _err(path, f"expected exactly one Pod, Deployment or ReplicaSet, found {len(found)} documents")
    index, doc = found[0]
    if not isinstance(doc, dict):
        raise _err(path, f"expected a mapping, got {type(doc).__name__}", document=index)
    kind = doc.get("kind")
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    name = meta.get("name")
    namespace = meta.get("namespace") or "default"
    ident = f"{namespace}/{name}" if name else None
    if kind not in ("Pod", *WORKLOAD_KINDS):
        raise _err(path, f'Unsupported value: "{kind}": supported values: "Pod", "Deployment", "ReplicaSet"',
                   document=index, fld="kind")
    if not isinstance(name, str) or not name:
        raise _err(path, "Required value: the copies are named after it", document=index, kind=kind,
                   fld="metadata.name")
    if kind == "Pod":
        manifest = copy.deepcopy(doc)
        prefix = ""
    else:
        spec = doc.get("spec")
        template = spec.get("template") if isinstance(spec, dict) else None
        if not isinstance(template, dict):
            raise _err(path, "Required value: a pod template", document=index, kind=kind, name=ident,
                       fld="spec.template")
        tmeta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
        manifest = {"apiVersion": "v1", "kind": "Pod",
                    "metadata": {**copy.deepcopy(tmeta), "name": name, "namespace": namespace},
                    "spec": copy.deepcopy(template.get("spec"))}
        prefix = "spec.template."
    spec = manifest.get("spec")
    if isinstance(spec, dict):
        if spec.get("nodeName"):
            raise _err(path, "Invalid value: a copy must be placed by the scheduler, not bound in advance",
                       document=index, kind=kind, name=ident, fld=f"{prefix}spec.nodeName")
        if spec.get("schedulingGates"):
            raise _err(path, "Invalid value: a gated copy is never tried, so nothing would be counted",
                       document=index, kind=kind, name=ident, fld=f"{prefix}spec.schedulingGates")
    manifest.setdefault("metadata", {})
    manifest["metadata"].pop("uid", None)
    manifest["metadata"].pop("resourceVersion", None)
    manifest.pop("status", None)
    return PodTemplate(manifest, path, index, kind, ident or name, prefix)


def _copy_manifest(tpl: PodTemplate, i: int) -> dict[str, Any]:
    m = dict(tpl.manifest)
    m["metadata"] = {**tpl.manifest["metadata"], "name": f"{tpl.base_name}-{i}"}
    return m


def _parse_copy(sim: Simulation, tpl: PodTemplate, i: int) -> dict[str, Any]:
    """The `addPod` action for copy `i`, validated as a live action is; a refusal is
    re-located to the template's file, document and field."""
    from scheduler_core.loader import parse_action

    obj = {"action": "addPod", "pod": _copy_manifest(tpl, i)}
    try:
        act = parse_action(obj, sim.scenario, at=sim.clock.now(), index=COPY_INDEX + i, source=tpl.file)
    except ScenarioError as e:
        fld = e.field or ""
        for head in ("actions[0].pod.", "actions[0].pod"):
            if fld.startswith(head):
                fld = fld[len(head):]
                break
        raise _err(tpl.file, e.reason, document=tpl.document, kind=tpl.kind, name=tpl.name,
                   fld=(tpl.field_prefix + fld) if fld else None) from None
    return act.params


def count_capacity(sim: Simulation, tpl: PodTemplate, max_copies: int | None = None,
                   max_time: float = 3600.0, out_of_budget: Callable[[], bool] | None = None) -> CapacityResult:
    """Add copies of `tpl` one by one to `sim` (a fresh Simulation of the cluster) until the
    scheduler fails to bind one or `max_copies` were bound. Raises ScenarioError (located in
    the template's file) when the pod cannot be made, or names a scheduler the cluster lacks.
    `out_of_budget`: asked before each copy; True ends the count there (`budget_spent`): the
    count is then only a lower bound (the web answers in the request within a CPU budget)."""
    sim.timeline = []  # the cluster as it is: its Timeline is not played
    sim.run(max_time)
    first = _parse_copy(sim, tpl, 0)
    pod0: Pod = first["pod"]
    if pod0.scheduler_name not in sim.scheduler.profiles:
        raise _err(tpl.file, f'Unsupported value: "{pod0.scheduler_name}": no profile of the cluster\'s '
                   f'scheduler has this schedulerName (profiles: {", ".join(sorted(sim.scheduler.profiles))})',
                   document=tpl.document, kind=tpl.kind, name=tpl.name, fld=f"{tpl.field_prefix}spec.schedulerName")
    result = CapacityResult(pod=f"{pod0.namespace}/{tpl.base_name}", count=0, max=max_copies)
    records = sim.scheduler.cluster.records
    per_node: dict[str, int] = {}
    i = 0
    params = first
    while max_copies is None or i < max_copies:
        if out_of_budget is not None and out_of_budget():
            result.budget_spent = True
            break
        if i > 0:
            params = _parse_copy(sim, tpl, i)
        key = params["pod"].key
        try:
            sim.apply_action("addPod", params)
        except ActionError as e:
            raise _err(tpl.file, f"copy {key}: {e}", document=tpl.document, kind=tpl.kind, name=tpl.name,
                       fld="metadata.name") from None
        settled = sim.run(max_time)
        rec = records[key]
        if rec.status == "Bound" and rec.node is not None:
            per_node[rec.node] = per_node.get(rec.node, 0) + 1
            i += 1
            continue
        result.stopped_by = key
        if rec.message:
            result.stop_reason = rec.message
        elif not settled:
            result.stop_reason = f"not placed within {max_time:g} virtual seconds"
        else:
            result.stop_reason = f"not placed: the pod is {rec.status}"
        break
    result.count = i
    result.per_node = dict(sorted(per_node.items()))
    return result
