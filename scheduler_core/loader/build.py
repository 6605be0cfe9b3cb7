"""Scenario assembly: documents -> entries (List items flattened, kinds checked) -> objects
in dependency order (PriorityClasses first, then everything else in document order)."""

from __future__ import annotations

from collections.abc import Collection

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.scenario import Scenario
from scheduler_core.api.types import Namespace, Pod, PriorityClass
from scheduler_core.loader.admission import SYSTEM_PRIORITY_CLASSES, PriorityAdmission
from scheduler_core.loader.apiserver import read_api_server
from scheduler_core.loader.bounds import timeline_additions
from scheduler_core.loader.documents import Entry
from scheduler_core.loader.limits import DEFAULT_LIMITS, Limits
from scheduler_core.loader.nodes import parse_node
from scheduler_core.loader.objects import (
    parse_config_document,
    parse_namespace,
    parse_pdb,
    parse_priority_class,
    parse_workload,
)
from scheduler_core.loader.pods import parse_pod
from scheduler_core.loader.reader import FieldReader, Location
from scheduler_core.loader.references import unknown_node_warnings
from scheduler_core.loader.resource_build import add_resource_object, check_resource_references
from scheduler_core.loader.resource_schema import RESOURCE_KINDS
from scheduler_core.loader.start_time import read_start_times
from scheduler_core.loader.storage import STORAGE_KINDS, admit_storage
from scheduler_core.loader.storage_build import add_storage_object
from scheduler_core.loader.strict import NotSimulated
from scheduler_core.loader.timeline import parse_timeline
from scheduler_core.loader.workload_v1alpha1 import parse_workload_v1alpha1

__all__ = ["build_scenario", "check_limits"]

def check_limits(entries: list[Entry], source: str, limits: Limits) -> None:
    """Count nodes and pods (timeline additions included) before parsing any of them (the
    counts `bounds.limit_check` made before the workloads were expanded, now of the result)."""
    nodes = sum(1 for e in entries if e.kind == "Node")
    pods = sum(1 for e in entries if e.kind == "Pod")
    added_nodes, added_pods = timeline_additions(e.obj for e in entries if e.kind == "Timeline")
    nodes += added_nodes
    pods += added_pods
    if nodes > limits.max_nodes:
        raise ScenarioError(limits.refusal("max_nodes", f"too many nodes ({nodes:,})"),
                            file=source)
    if pods > limits.max_pods:
        raise ScenarioError(limits.refusal("max_pods", f"too many pods ({pods:,})"),
                            file=source)


def build_scenario(entries: list[Entry], source: str, limits: Limits = DEFAULT_LIMITS,
                   notes: NotSimulated | None = None,
                   deployments: Collection[str] = ()) -> Scenario:
    """Objects in dependency order: PriorityClasses first (admission needs them all), then
    everything else in document order; then cross-object checks and derived state.
    `deployments` ("ns/name") are those a timeline's scaleDeployment may name."""
    check_limits(entries, source, limits)
    sc = Scenario(source=source)
    seen: dict[tuple[str, str, str], int] = {}

    def reader(e: Entry) -> FieldReader:
        return FieldReader(Location(source, e.doc, e.kind))

    def unique(r: FieldReader, e: Entry, ns: str, name: str) -> None:
        key = (e.kind, ns, name)
        if key in seen:
            raise r.err("metadata.name", f'Duplicate value: {e.kind} "{ns + "/" if ns else ""}'
                                         f'{name}" is already defined in document {seen[key]}')
        seen[key] = e.doc

    # PriorityClasses first: admission of every pod depends on all of them (as if they had
    # been created before the pods, which is how such a scenario would be applied).
    classes: list[PriorityClass] = []
    default_doc: tuple[str, int] | None = None
    for e in entries:
        if e.kind != "PriorityClass":
            continue
        r = reader(e)
        pc = parse_priority_class(r, e.obj)
        if pc.name in SYSTEM_PRIORITY_CLASSES:
            continue  # re-declaring a built-in class identically is a no-op
        unique(r, e, "", pc.name)
        if pc.global_default:
            if default_doc is not None:
                raise r.err("globalDefault", f"Forbidden: PriorityClass {default_doc[0]} is "
                                             "already marked as default. Only one default can "
                                             "exist")
            default_doc = (pc.name, e.doc)
        classes.append(pc)
    sc.priority_classes = classes
    sc.disabled_admission_plugins = read_api_server(
        [(reader(e), e.obj) for e in entries if e.kind == "APIServer"])
    admission = PriorityAdmission(classes, sc.disabled_admission_plugins)

    configs = 0
    timeline_entry: Entry | None = None
    pod_raws: list[tuple[FieldReader, Pod]] = []
    resource_raws: list[tuple[FieldReader, object]] = []
    index = 0  # creation order shared by Nodes and Pods (document order)
    for e in entries:
        kind = e.kind
        if kind == "PriorityClass":
            continue
        r = reader(e)
        if kind == "Pod":
            pod = parse_pod(r, e.obj, index, admission)
            index += 1
            unique(r, e, pod.namespace, pod.name)
            sc.pods.append(pod)
            pod_raws.append((r, pod))
        elif kind == "Node":
            node = parse_node(r, e.obj, index)
            index += 1
            unique(r, e, "", node.name)
            sc.nodes.append(node)
        elif kind == "PodDisruptionBudget":
            pdb = parse_pdb(r, e.obj)
            unique(r, e, pdb.namespace, pdb.name)
            sc.pdbs.append(pdb)
        elif kind == "Workload":
            wl = parse_workload_v1alpha1(r, e.obj)
            unique(r, e, wl.namespace, wl.name)
            sc.scheduling_workloads.append(wl)
        elif kind == "Namespace":
            ns = parse_namespace(r, e.obj)
            unique(r, e, "", ns.name)
            sc.namespaces.append(ns)
        elif kind in ("Service", "ReplicationController", "ReplicaSet", "StatefulSet"):
            w = parse_workload(r, e.obj, kind)
            unique(r, e, w.namespace, w.name)
            sc.workloads.append(w)
        elif kind == "KubeSchedulerConfiguration":
            configs += 1
            if configs > 1:
                raise r.err(None, "only one KubeSchedulerConfiguration document is allowed")
            sc.config = parse_config_document(r, e.obj)
        elif kind in STORAGE_KINDS:
            ns, name = add_storage_object(sc.storage, r, e.obj, kind, e.doc)
            unique(r, e, ns, name)
        elif kind in RESOURCE_KINDS:
            add_resource_object(sc, r, e, unique, resource_raws)
        elif kind == "Timeline":
            if timeline_entry is not None:
                raise r.err(None, f"only one Timeline document is allowed (the first is "
                                  f"document {timeline_entry.doc})")
            timeline_entry = e

    sc.warnings = unknown_node_warnings(sc, pod_raws)
    read_start_times([(r, pod, e.obj) for (r, pod), e in zip(pod_raws, (e for e in entries if e.kind == "Pod"),
                                                          strict=True)])

    admit_storage(sc.storage)
    sc.warnings += check_resource_references(sc, pod_raws, resource_raws)
    _add_implicit_namespaces(sc)
    _compute_pdb_status(sc)

    if timeline_entry is not None:
        sc.timeline = parse_timeline(reader(timeline_entry), timeline_entry.obj, admission, sc,
                                index, notes=notes, deployments=deployments)
    sc.pod_resources_error = admission.pod_resources_error
    return sc


def _add_implicit_namespaces(sc: Scenario) -> None:
    """Namespaces used but not declared exist in any real cluster the scenario was applied to."""
    declared = {ns.name for ns in sc.namespaces}
    used: list[str] = ["default"]
    used += [p.namespace for p in sc.pods]
    used += [p.namespace for p in sc.pdbs]
    used += [w.namespace for w in sc.workloads]
    used += [c.namespace for c in sc.storage.pvcs]
    used += [c.namespace for c in sc.resource_claims]
    used += [t.namespace for t in sc.resource_claim_templates]
    for name in used:
        if name not in declared:
            declared.add(name)
            sc.namespaces.append(Namespace(name=name,
                                           labels={"kubernetes.io/metadata.name": name}))


def _compute_pdb_status(sc: Scenario) -> None:
    """status.disruptionsAllowed as the disruption controller computes it at time 0.

    Healthy pods are the matching pods already bound to a node. Only an integer minAvailable can
    be evaluated without a controller behind the pods; maxUnavailable and percentages need the
    controller's scale, which fails here, and upstream then allows no disruption.
    """
    for pdb in sc.pdbs:
        if pdb.selector is None or not isinstance(pdb.min_available, int) \
                or pdb.max_unavailable is not None:
            pdb.disruptions_allowed = 0
            continue
        matching = [p for p in sc.pods
                    if p.namespace == pdb.namespace and pdb.selector.matches(p.labels)]
        healthy = sum(1 for p in matching if p.node_name)
        allowed = healthy - pdb.min_available
        pdb.disruptions_allowed = allowed if (matching and allowed > 0) else 0


