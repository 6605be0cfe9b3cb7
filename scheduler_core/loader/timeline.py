"""The playground's Timeline document and live run actions, validated like the objects they
carry, and replayed on names so every action refers to something that exists at its time.

This is the frame every action shares (`at`, `action`, unknown fields, time order, identities);
each action's own fields are its spec's (scheduler_core/actions/), and whether the objects it
names exist is the one rule of scheduler_core/actions/names.py, over the timeline's names."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from typing import Any

from scheduler_core.actions.fail_bind import DEFAULT_BIND_FAILURE, MAX_BIND_FAILURE_MESSAGE
from scheduler_core.actions.names import TimelineNames, first_missing, replay
from scheduler_core.actions.registry import action_names, spec_of
from scheduler_core.actions.spec import ParseContext
from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import Node, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.loader.admission import PriorityAdmission
from scheduler_core.loader.reader import FieldReader, Location, type_name
from scheduler_core.loader.strict import NotSimulated

__all__ = ["parse_timeline", "parse_action", "DEFAULT_BIND_FAILURE", "MAX_BIND_FAILURE_MESSAGE"]


def __getattr__(name: str) -> Any:
    """TIMELINE_ACTIONS: the registered action names (scheduler_core/actions/registry.py), read
    when asked so a kind registered later is included."""
    if name == "TIMELINE_ACTIONS":
        return action_names()
    raise AttributeError(name)


def parse_timeline(r: FieldReader, obj: dict[str, Any], admission: PriorityAdmission,
                   sc: Scenario, base_index: int, check: bool = True,
                   notes: NotSimulated | None = None,
                   deployments: Collection[str] = ()) -> list[TimelineAction]:
    """The Timeline document's actions in time order (stable for equal times). Pods and nodes
    the actions add are checked as strictly as top-level ones; with `check`, actions are
    replayed on names so each refers to an object that exists at its time (`deployments`:
    the "ns/name" of the scenario's Deployments, for scaleDeployment)."""
    notes = notes if notes is not None else NotSimulated()
    r.doc.name = None
    raw_actions = r.seq(obj.get("actions"), "actions")
    parsed: list[tuple[float, int, TimelineAction]] = []
    for i, a in enumerate(raw_actions):
        p = f"actions[{i}]"
        m = r.mapping(a, p, required=True)
        if m.get("at") is None:
            raise r.err(f"{p}.at", "Required value: the virtual time in seconds")
        at = r.number(m.get("at"), f"{p}.at")
        if at < 0:
            raise r.err(f"{p}.at", f"Invalid value: {at}: must be greater than or equal to 0")
        action = r.string(m.get("action"), f"{p}.action")
        supported = action_names()
        if action not in supported:
            raise r.err(f"{p}.action", 'Unsupported value: "' + action + '": supported values: '
                                       + ", ".join(f'"{x}"' for x in supported))
        spec = spec_of(action)
        allowed_keys = {"at", "action", *spec.fields}
        extra = sorted(str(k) for k in m if k not in allowed_keys)
        if extra:
            reason = f'unknown field for action "{action}"'
            close = difflib.get_close_matches(extra[0], sorted(allowed_keys), n=1, cutoff=0.7)
            if close:
                reason += f'; did you mean "{close[0]}"?'
            raise r.err(f"{p}.{extra[0]}", reason)
        params = spec.parse(ParseContext(r, p, i, base_index, admission, notes), m)
        parsed.append((at, i, TimelineAction(time=at, action=action, params=params)))
    parsed.sort(key=lambda t: (t[0], t[1]))
    # Identities follow the (stable) time order, so a dumped and reloaded timeline is equal.
    for pos, (_, _, act) in enumerate(parsed):
        obj = _created(act)
        if isinstance(obj, Pod):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Pod", obj.namespace, obj.name, f"@timeline[{pos}]")
        elif isinstance(obj, Node):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Node", "", obj.name, f"@timeline[{pos}]")
    if check:
        _check_timeline(r, parsed, sc, set(deployments))
    return [t[2] for t in parsed]


def parse_action(obj: dict[str, Any], scenario: Scenario, at: float = 0.0, index: int = 0,
                 source: str = "<action>") -> TimelineAction:
    """One live action (a Timeline action mapping without `at`, e.g. {"action": "addPod",
    "pod": {...}}) validated exactly as a timeline action, with the scenario's PriorityClasses
    for admission. Whether the pod or node it names exists is the engine's check at apply time.
    `index` makes the created object's uid/creation_index unique within the run."""
    r = FieldReader(Location(source, 1, "Timeline"))
    if not isinstance(obj, dict):
        raise r.err(None, f"expected an action (a mapping), got {type_name(obj)}")
    admission = PriorityAdmission(scenario.priority_classes, scenario.disabled_admission_plugins)
    base = len(scenario.nodes) + len(scenario.pods) + len(scenario.timeline) + index
    acts = parse_timeline(r, {"actions": [{**obj, "at": at}]}, admission, Scenario(), base, check=False)
    act = acts[0]
    target = _created(act)
    if isinstance(target, (Pod, Node)):
        kind = "Pod" if isinstance(target, Pod) else "Node"
        target.uid = stable_uid(kind, getattr(target, "namespace", ""), target.name, f"@action[{index}]")
    return act


def _created(act: TimelineAction) -> Any:
    """The Pod or Node object an action carries (addPod, addNode), else None."""
    for key in ("pod", "node"):
        obj = act.params.get(key)
        if isinstance(obj, (Pod, Node)):
            return obj
    return None


def _check_timeline(r: FieldReader, parsed: list[tuple[float, int, TimelineAction]],
                    sc: Scenario, deployments: set[str]) -> None:
    """Replay the actions on names only: objects must exist when an action refers to them, and
    must not when it creates them. (The pods a scaleDeployment or a drain creates are named at
    run time, so they are not tracked.)"""
    names = TimelineNames.of_scenario(sc, deployments)
    for _, i, act in parsed:
        p = f"actions[{i}]"
        spec = spec_of(act.action)
        refs = spec.refs(act.params)
        missing = first_missing(refs, names)
        if missing is not None:
            at = "" if missing.ref.kind == "Deployment" else f" at t={act.time:g}"
            raise r.err(f"{p}.{missing.ref.field}", missing.message() + at)
        warning = spec.replay_warning(act.params, names)
        if warning is not None:
            field, text = warning
            sc.warnings.append(LoadWarning(
                text.replace("{time}", f"{act.time:g}"), file=r.doc.file, document=r.doc.index,
                kind=r.doc.kind, name=r.doc.name, field=f"{p}.{field}", category="reference"))
        replay(refs, names)
