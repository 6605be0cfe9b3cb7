"""A cluster action is checked in the request, before it is queued: a bad value is refused there,
with the message next to its form field, instead of "Queued" and then failing in the worker.

The checks are the engine's own (scheduler_core/actions/), over what the web has stored:

- the action parsed exactly as the worker will parse it (`parse_action`: names are RFC 1123,
  quantities valid, the PriorityClass one of the scenario's, a taint's key and effect, a weight
  from 1 to 100);
- the objects it names, by the one rule of scheduler_core/actions/names.py over the run's stored
  head plus the cluster actions still queued before it (`StoredNames`), and a Score weight only
  for one of the profile's Score plugins;
- the node and pod limits (PLAYGROUND_MAX_NODES / PLAYGROUND_MAX_PODS): what the cluster would
  have after the action, counted before anything is queued.

The scenario itself is read by the loader only (its YAML decoder; no pattern matching of
documents). The worker still checks everything again when it applies the action (something
queued before it, a step or a preemption, may still change the cluster); this only moves the
common mistakes forward.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
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
    "timeout": "timeout",
}


@dataclass(frozen=True)
class ScenarioFacts:
    """What the checks need of a run's scenario: its PriorityClasses (admission) and whether it
    has a DeschedulerPolicy."""

    admission: Any  # a Scenario holding only the PriorityClasses
    has_descheduler_policy: bool


def check_cluster_action(run: Run, params: dict[str, Any]) -> None:
    """Raise RunError (with the form field) if the worker would refuse `params`; else nothing."""
    from scheduler_core.actions.names import first_missing
    from scheduler_core.actions.registry import spec_of
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader.timeline import parse_action

    facts = _facts(run.scenario_yaml)
    if params.get("action") == "runDescheduler":
        if set(params) != {"action"} or not facts.has_descheduler_policy:
            raise RunError("This scenario has no DeschedulerPolicy document (apiVersion descheduler/v1alpha2): "
                           "add one to the scenario to say which strategies the descheduler runs.")
        return
    try:
        act = parse_action(params, facts.admission, at=0.0)
    except ScenarioError as error:
        field = _form_field(error.field)
        label = field or (error.field or "action")
        raise RunError(f"{label}: {error.reason}", field=field) from None
    names = _names_after_queue(run, facts)
    _check_room(run, act.action, act.params, len(names.nodes), len(names.pods))
    missing = first_missing(spec_of(act.action).refs(act.params), names)
    if missing is not None and missing.ref.kind != "Deployment":  # the scale form offers only the run's
        field = "name" if missing.exists else missing.ref.field  # a new object's form field is its name
        raise RunError(f"{field}: {missing.message()}", field=field)
    if act.action == "setScoreWeight":
        profile = act.params.get("profile") or "default-scheduler"
        plugins = score_plugins(run=run, profile=profile)
        if plugins and act.params["plugin"] not in plugins:
            raise RunError(
                f'plugin: "{act.params["plugin"]}" is not a Score plugin of profile "{profile}" '
                f"(its Score plugins: {', '.join(plugins)})",
                field="plugin",
            )


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
    """The form field of an engine field path ("actions[0].pod.metadata.name" -> "name")."""
    last = (path or "").rsplit(".", 1)[-1].partition("[")[0]
    return FORM_FIELDS.get(last)


@functools.lru_cache(maxsize=64)
def _facts(scenario_yaml: str) -> ScenarioFacts:
    """The scenario's PriorityClasses and policy, from the loader's own split and decoding of its
    YAML: only the documents that name one of the two kinds are decoded, and the admission
    scenario is loaded from the PriorityClass documents only, so a 5,000-node scenario or a
    200,000-action timeline is not decoded again for a form post."""
    import yaml

    from scheduler_core.api.scenario import Scenario
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.loader.yaml_fast import document_texts
    from scheduler_core.loader.yaml_input import decode_yaml

    wanted = "".join(d for d in document_texts(scenario_yaml) if "PriorityClass" in d or "DeschedulerPolicy" in d)
    docs, _ = decode_yaml(wanted, "run") if wanted else ([], [])
    kinds = [d.get("kind") for d in docs if isinstance(d, dict)]
    classes = [d for d in docs if isinstance(d, dict) and d.get("kind") == "PriorityClass"]
    admission = load_scenario_text(yaml.safe_dump_all(classes), source="run") if classes else Scenario()
    return ScenarioFacts(admission=admission, has_descheduler_policy="DeschedulerPolicy" in kinds)


def _names_after_queue(run: Run, facts: ScenarioFacts) -> Any:
    """The names at the run's stored head (`StoredNames`), after the cluster actions queued (not
    yet applied) that add or delete them, replayed by the same rule the loader uses."""
    from scheduler_core.actions.names import StoredNames, replay
    from scheduler_core.actions.registry import spec_of
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader.timeline import parse_action

    head = Run.objects.filter(pk=run.pk).values_list("head_step", flat=True).first() or 0
    names = StoredNames.of_view(view_at(run=run, step=head))
    queued = run.actions.filter(
        kind=RunAction.KIND_CLUSTER, state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]
    ).order_by("index")
    for params in queued.values_list("params", flat=True):
        try:
            act = parse_action(params or {}, facts.admission, at=0.0)
        except ScenarioError:
            continue  # refused when it was queued: the worker will refuse it again
        replay(spec_of(act.action).refs(act.params), names)
    return names
