"""Adding many objects at once: a pool of identical nodes, a Deployment-like batch of pods.

The editor's bulk forms and the uploads' worker call these; they build the manifests as a
kubelet or a ReplicaSet controller would (hostname and zone labels, capacity equal to
allocatable; pod-template-hash names), refuse a count past the web's limits before building
anything, and append the result through services.scenario_objects (validated with the rest).
Names are drawn from an RNG seeded by the scenario and the batch, so the same request on the
same scenario gives the same names.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground.limits import web_limits
from playground.manifests import API_VERSIONS
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor
from playground.services.scenario_objects import append_objects
from playground.services.scenario_validation import ScenarioInvalid

MAX_BULK = 5000
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
HOSTNAME_LABEL = "kubernetes.io/hostname"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


def zone_names(count: int) -> list[str]:
    """zone-a, zone-b, ... zone-z, then zone-27, zone-28, ..."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [f"zone-{letters[i]}" if i < len(letters) else f"zone-{i + 1}" for i in range(count)]


def _next_free_index(existing: Iterable[str], prefix: str) -> int:
    pattern = re.compile(rf"^{re.escape(prefix)}-(\d+)$")
    highest = 0
    for name in existing:
        match = pattern.match(name)
        if match:
            highest = max(highest, int(match.group(1)))
    return highest + 1


@dataclass(frozen=True)
class NodeTemplate:
    cpu: str = "4"
    memory: str = "16Gi"
    pods: int | None = 110
    labels: dict[str, str] | None = None
    taints: list[dict[str, Any]] | None = None
    unschedulable: bool = False


def node_manifest(*, name: str, template: NodeTemplate, zone: str = "", region: str = "") -> dict[str, Any]:
    """A Node manifest as a kubelet would register it (hostname label, capacity = allocatable)."""
    labels = {HOSTNAME_LABEL: name}
    if region:
        labels[REGION_LABEL] = region
    if zone:
        labels[ZONE_LABEL] = zone
    labels.update(template.labels or {})
    capacity: dict[str, Any] = {}
    if template.cpu:
        capacity["cpu"] = template.cpu
    if template.memory:
        capacity["memory"] = template.memory
    if template.pods is not None:
        capacity["pods"] = str(template.pods)
    manifest: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    spec: dict[str, Any] = {}
    if template.taints:
        spec["taints"] = list(template.taints)
    if template.unschedulable:
        spec["unschedulable"] = True
    if spec:
        manifest["spec"] = spec
    manifest["status"] = {"capacity": capacity, "allocatable": dict(capacity)}
    return manifest


def _check_room(scenario: Scenario, kind: str, limit: str, noun: str, count: int) -> None:
    """Refuse a bulk addition that the scenario's objects of `kind` plus `count` would take past
    the limit, before any manifest is made (what workloads and a timeline add is counted by the
    loader's validation, which follows)."""
    limits = web_limits()
    have = scenario.kube_objects.filter(kind=kind).count()
    if have + count > getattr(limits, limit):
        raise ScenarioInvalid(
            limits.refusal(limit, f"count: too many {noun} ({have:,} in the scenario and {count:,} more)"),
            field="count",
        )


def scenario_nodes_add_bulk(
    *, scenario: Scenario, actor: Actor, count: int, prefix: str, zones: int, template: NodeTemplate
) -> list[ScenarioObject]:
    """Add `count` identical nodes named prefix-N, spread round-robin over `zones` zones."""
    if not 1 <= count <= MAX_BULK:
        raise ScenarioInvalid(f"the number of nodes must be between 1 and {MAX_BULK}")
    _check_room(scenario, "Node", "max_nodes", "nodes", count)
    if not 0 <= zones <= 26 * 4:
        raise ScenarioInvalid("the number of zones must be between 0 and 104")
    names = scenario.kube_objects.filter(kind="Node").values_list("name", flat=True)
    start = _next_free_index(names, prefix)
    width = max(len(str(start + count - 1)), 1)
    zone_list = zone_names(zones)
    new = [
        node_manifest(
            name=f"{prefix}-{index:0{width}d}" if count > 1 else f"{prefix}-{index}",
            template=template,
            zone=zone_list[i % zones] if zones else "",
            region="region-1" if zones else "",
        )
        for i, index in enumerate(range(start, start + count))
    ]
    return append_objects(scenario, actor, new)


# Kubernetes' rand.String alphabet (no vowels, no confusable characters).
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _suffix(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_SUFFIX_ALPHABET) for _ in range(length))


def scenario_pods_add_batch(
    *,
    scenario: Scenario,
    actor: Actor,
    count: int,
    name: str,
    pod_template: dict[str, Any],
    with_replicaset: bool = True,
) -> list[ScenarioObject]:
    """A Deployment-like batch: `count` pods from `pod_template` named <name>-<hash>-<xxxxx>.

    The pods carry `app: <name>` and a pod-template-hash label; with `with_replicaset` a
    ReplicaSet selecting them is added too (and named as the pods' controller owner), so the
    scheduler's default topology spreading groups them as it would a real Deployment's pods.
    """
    if not 1 <= count <= MAX_BULK:
        raise ScenarioInvalid(f"the number of pods must be between 1 and {MAX_BULK}")
    _check_room(scenario, "Pod", "max_pods", "pods", count)
    metadata = dict(pod_template.get("metadata") or {})
    namespace = metadata.get("namespace") or "default"
    existing = {(row[0], row[1]) for row in scenario.kube_objects.filter(kind="Pod").values_list("namespace", "name")}
    rng = random.Random(f"{scenario.pk}/{namespace}/{name}/{len(existing)}")
    template_hash = _suffix(rng, 10)
    rs_name = f"{name}-{template_hash}"
    labels = dict(metadata.get("labels") or {})
    labels.setdefault("app", name)
    labels["pod-template-hash"] = template_hash
    new: list[dict[str, Any]] = []
    if with_replicaset:
        new.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": rs_name, "namespace": namespace, "labels": dict(labels)},
                "spec": {
                    "replicas": count,
                    "selector": {"matchLabels": {"app": labels["app"], "pod-template-hash": template_hash}},
                },
            }
        )
    names: set[str] = set()
    while len(names) < count:
        candidate = f"{rs_name}-{_suffix(rng, 5)}"
        if (namespace, candidate) not in existing:
            names.add(candidate)
    for pod_name in sorted(names):
        pod = {k: v for k, v in pod_template.items() if k != "metadata"}
        pod["metadata"] = {**metadata, "name": pod_name, "namespace": namespace, "labels": dict(labels)}
        if with_replicaset:
            pod["metadata"]["ownerReferences"] = [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "controller": True}
            ]
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
        new.append(pod)
    return append_objects(scenario, actor, new)


def empty_manifest(kind: str) -> dict[str, Any]:
    return {"apiVersion": API_VERSIONS[kind], "kind": kind, "metadata": {}}
