"""The pods a scenario's workloads (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs,
ReplicationControllers) will create when a run starts, grouped by owner: what the scenario page
shows beside the pods written by hand, so an imported cluster does not read "0 pods"."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from playground.limits import web_limits
from playground.models import Scenario
from playground.selectors.scenarios import objects_version, scenario_yaml
from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads.summary import CREATED
from scheduler_core.loader import load_scenario_text

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController")
SAMPLE = 8  # pod names listed per owner
_cache: OrderedDict[tuple[int, Any], dict[str, Any] | None] = OrderedDict()
_CACHE_SIZE = 16


def workload_pods(*, scenario: Scenario, counts: dict[str, int]) -> dict[str, Any] | None:
    """{"total", "groups": [{"owner", "via", "count", "sample"}]}, or None when the scenario has
    no workload (or does not load: the page shows the loader's error elsewhere). The loader's
    own expansion decides, so the page and a run can never disagree."""
    if not any(counts.get(kind) for kind in WORKLOAD_KINDS):
        return None
    kept = Scenario.objects.filter(pk=scenario.pk).values_list("workload_pods_version", "workload_pods_cache").first()
    if kept and kept[0] and kept[0] == objects_version(scenario=scenario):
        return kept[1]  # as the loader found them when these objects were stored
    key = (scenario.pk, scenario.updated_at)
    if key not in _cache:
        _cache[key] = _expand(scenario)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return _cache[key]


def _expand(scenario: Scenario) -> dict[str, Any] | None:
    try:
        loaded = load_scenario_text(scenario_yaml(scenario=scenario), source="scenario.yaml", limits=web_limits())
    except ScenarioError:
        return None
    return pods_by_owner(loaded.load_summary)


def pods_by_owner(load_summary: Any) -> dict[str, Any] | None:
    """`workload_pods`'s answer from a load's summary (`Scenario.load_summary`)."""
    created = [e for e in load_summary.entries if e.outcome == CREATED]
    via = {e.name.rsplit("/", 1)[-1]: e.reason.removeprefix("by ") for e in created if e.kind == "ReplicaSet"}
    groups: dict[str, dict[str, Any]] = {}
    for e in created:
        if e.kind != "Pod":
            continue
        owner = e.reason.removeprefix("by ")
        group = groups.setdefault(owner, {"owner": owner, "via": "", "count": 0, "sample": []})
        kind, _, name = owner.partition(" ")
        if kind == "ReplicaSet" and name in via:
            group["owner"], group["via"] = via[name], name
        group["count"] += 1
        if len(group["sample"]) < SAMPLE:
            group["sample"].append(e.name)
    if not groups:
        return None
    return {"total": sum(g["count"] for g in groups.values()), "groups": list(groups.values())}
