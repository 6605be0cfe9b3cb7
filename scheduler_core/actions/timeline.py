"""The Timeline document's parser: the frame every action shares (`at`, `action`, unknown fields,
time order, identities), each action's own fields through its spec (spec.py, registry.py), and the
replay on names so every action refers to something that exists at its time (names.py).

Why here and not in the loader: the specs read the pods and nodes an action carries with the
loader's parsers, so the actions sit above the loader, and the loader may not import them. The
package's root hands this parser to the loader (scheduler_core/__init__.py, `use_parser` in
scheduler_core/loader/timeline.py), which calls it for a scenario's Timeline document and for a
live action (`parse_action`)."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from typing import Any

from scheduler_core.actions.names import TimelineNames, first_missing, replay
from scheduler_core.actions.registry import action_names, spec_of
from scheduler_core.actions.spec import ParseContext
from scheduler_core.api.errors import LoadWarning
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import Node, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.loader.admission import PriorityAdmission
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.strict import NotSimulated
from scheduler_core.loader.timeline import created

__all__ = ["parse_timeline"]


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
        obj = created(act)
        if isinstance(obj, Pod):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Pod", obj.namespace, obj.name, f"@timeline[{pos}]")
        elif isinstance(obj, Node):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Node", "", obj.name, f"@timeline[{pos}]")
    if check:
        _check_timeline(r, parsed, sc, set(deployments))
    return [t[2] for t in parsed]


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
