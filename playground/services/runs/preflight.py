"""A cluster action is checked in the request, before it is queued: a bad value is refused there,
with the message next to its form field, instead of "Queued" and then failing in the worker.

Two checks, both the engine's own rules:

- the action parsed exactly as the worker will parse it (`parse_action`: names are RFC 1123,
  quantities valid, the PriorityClass one of the scenario's, a taint's key and effect, a weight
  from 1 to 100);
- the objects it names, against the run's stored head plus the cluster actions still queued
  before it (a pod or node to add must not exist, one to change or delete must), and a Score
  weight only for one of the profile's Score plugins;
- the node and pod limits (PLAYGROUND_MAX_NODES / PLAYGROUND_MAX_PODS): what the cluster would
  have after the action, counted before anything is queued.

The worker still checks everything again when it applies the action (something queued before it,
a step or a preemption, may still change the cluster); this only moves the common mistakes forward.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from playground.models import Run, RunAction
from playground.selectors.frame_views import view_at
from playground.selectors.runs import score_plugins
from playground.services.runs.errors import RunError

# The form field an engine field path ends in (the run page's cluster forms use these names).
FORM_FIELDS = {
    "name": "name",
    "cpu": "cpu",
    "memory": "memory",
    "priorityClassName": "priorityClassName",
    "pod": "pod",
    "node": "node",
    "key": "key",
    "value": "value",
    "effect": "effect",
    "plugin": "plugin",
    "weight": "weight",
}
_PRIORITY_CLASS_DOC = re.compile(r"^kind:\s*PriorityClass\s*$", re.M)
_DESCHEDULER_POLICY_DOC = re.compile(r"^kind:\s*[\"']?DeschedulerPolicy[\"']?\s*$", re.M)
_DOC_SPLIT = re.compile(r"^---\s*$", re.M)


def check_cluster_action(run: Run, params: dict[str, Any]) -> None:
    """Raise RunError (with the form field) if the worker would refuse `params`; else nothing."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader.timeline import parse_action

    if params.get("action") == "runDescheduler":
        if set(params) != {"action"} or not _DESCHEDULER_POLICY_DOC.search(run.scenario_yaml):
            raise RunError("This scenario has no DeschedulerPolicy document (apiVersion descheduler/v1alpha2): "
                           "add one to the scenario to say which strategies the descheduler runs.")
        return
    try:
        act = parse_action(params, _admission(run.scenario_yaml), at=0.0)
    except ScenarioError as error:
        field = _form_field(error.field)
        label = field or (error.field or "action")
        raise RunError(f"{label}: {error.reason}", field=field) from None
    nodes, pods = _names_after_queue(run)
    action = act.action
    _check_room(run, action, act.params, len(nodes), len(pods))
    if action == "addPod":
        pod = act.params["pod"]
        if pod.key in pods:
            raise RunError(f'name: pod "{pod.key}" already exists', field="name")
    elif action == "deletePod":
        key = str(act.params["pod"])  # "namespace/name"
        if key not in pods:
            raise RunError(f'pod: pod "{key}" does not exist', field="pod")
    elif action == "failBind":
        key = str(act.params["pod"])
        if key not in pods:
            raise RunError(f'pod: pod "{key}" does not exist', field="pod")
    elif action == "addNode":
        name = act.params["node"].name
        if name in nodes:
            raise RunError(f'name: node "{name}" already exists', field="name")
    elif action == "scaleDeployment":
        pass  # the Deployment is one of the run's: its form (scale_action_from_form) offers only those
    elif action == "setScoreWeight":
        profile = act.params.get("profile") or "default-scheduler"
        plugins = score_plugins(run=run, profile=profile)
        if plugins and act.params["plugin"] not in plugins:
            raise RunError(
                f'plugin: "{act.params["plugin"]}" is not a Score plugin of profile "{profile}" '
                f"(its Score plugins: {', '.join(plugins)})",
                field="plugin",
            )
    elif act.params.get("node") not in nodes:
        raise RunError(f'node: node "{act.params.get("node")}" does not exist', field="node")


def _check_room(run: Run, action: str, params: dict[str, Any], nodes: int, pods: int) -> None:
    """RunError when the action would take the cluster (its stored head plus the additions
    queued before it) past the web's node or pod limit: refused before anything is queued or
    built, as the worker would refuse it."""
    from playground.limits import web_limits

    limits = web_limits()
    if action == "addNode" and nodes + 1 > limits.max_nodes:
        raise RunError(limits.refusal("max_nodes", f"too many nodes ({nodes + 1:,})"), field="name")
    if action == "addPod" and pods + 1 > limits.max_pods:
        raise RunError(limits.refusal("max_pods", f"too many pods ({pods + 1:,})"), field="name")
    if action == "scaleDeployment":
        key = f"{params.get('namespace') or 'default'}/{params.get('name')}"
        view = view_at(run=run, step=run.head_step)
        have = next((d.get("replicas", 0) for d in view.get("deployments") or [] if d.get("key") == key), 0)
        total = pods + int(params.get("replicas") or 0) - have
        if total > limits.max_pods:
            raise RunError(f"replicas: {limits.refusal('max_pods', f'too many pods ({total:,})')}",
                           field="replicas")


def _form_field(path: str | None) -> str | None:
    last = re.sub(r"\[\d+\]", "", (path or "").rsplit(".", 1)[-1])
    return FORM_FIELDS.get(last)


@functools.lru_cache(maxsize=64)
def _admission(scenario_yaml: str) -> Any:
    """The scenario as far as admission needs it (its PriorityClasses), loaded from only those
    documents: a 5,000-node scenario is not parsed again for every form post."""
    from scheduler_core.api.scenario import Scenario
    from scheduler_core.loader import load_scenario_text

    docs = [d for d in _DOC_SPLIT.split(scenario_yaml) if _PRIORITY_CLASS_DOC.search(d)]
    if not docs:
        return Scenario()
    return load_scenario_text("\n---\n".join(docs), source="run")


def _names_after_queue(run: Run) -> tuple[set[str], set[str]]:
    """Node names and pod keys at the run's stored head, after the cluster actions queued (not
    yet applied) that add or delete them."""
    head = Run.objects.filter(pk=run.pk).values_list("head_step", flat=True).first() or 0
    view = view_at(run=run, step=head)
    nodes = {n["name"] for n in view.get("nodes", [])}
    pods = {p["key"] for p in view.get("pods", []) if p.get("status") != "Deleted"}
    queued = run.actions.filter(
        kind=RunAction.KIND_CLUSTER, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]
    ).order_by("index")
    for params in queued.values_list("params", flat=True):
        _apply_names(params or {}, nodes, pods)
    return nodes, pods


def _apply_names(params: dict[str, Any], nodes: set[str], pods: set[str]) -> None:
    action = params.get("action")
    if action == "addPod":
        meta = (params.get("pod") or {}).get("metadata") or {}
        pods.add(f"{meta.get('namespace') or 'default'}/{meta.get('name')}")
    elif action == "deletePod":
        ns, _, name = str(params.get("pod")).rpartition("/")
        pods.discard(f"{ns or 'default'}/{name}")
    elif action == "addNode":
        nodes.add(str(((params.get("node") or {}).get("metadata") or {}).get("name")))
    elif action == "deleteNode":
        nodes.discard(str(params.get("node")))
