"""The Timeline document in the loader: the parser it was handed, and live run actions.

A Timeline's entries are cluster actions, whose syntax is their specs' (scheduler_core/actions/:
the parser is scheduler_core/actions/timeline.py). The actions sit above the loader (their specs
read the pods and nodes an action carries with the loader's parsers), so the loader imports none
of them: the package's root hands the actions' parser in when the package is imported
(scheduler_core/__init__.py calls `use_parser`), and `build_scenario` and `parse_action` call it
through `parse_timeline` here. Imports point down; the one upward call is a value passed in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import Node, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.loader.admission import PriorityAdmission
from scheduler_core.loader.reader import FieldReader, Location, type_name
from scheduler_core.loader.strict import NotSimulated

__all__ = ["TimelineParser", "created", "parse_action", "parse_timeline", "use_parser"]


class TimelineParser(Protocol):
    """What parses a Timeline document (scheduler_core/actions/timeline.py's `parse_timeline`)."""

    def __call__(self, r: FieldReader, obj: dict[str, Any], admission: PriorityAdmission,
                 sc: Scenario, base_index: int, check: bool = True,
                 notes: NotSimulated | None = None,
                 deployments: Collection[str] = ()) -> list[TimelineAction]: ...


_PARSER: list[TimelineParser] = []  # the one handed in (a list: no module-level rebinding)


def use_parser(parser: TimelineParser) -> None:
    """Parse Timeline documents and live actions with `parser` from now on."""
    _PARSER[:] = [parser]


def parse_timeline(r: FieldReader, obj: dict[str, Any], admission: PriorityAdmission,
                   sc: Scenario, base_index: int, check: bool = True,
                   notes: NotSimulated | None = None,
                   deployments: Collection[str] = ()) -> list[TimelineAction]:
    """The Timeline document's actions in time order, by the parser handed in (its docstring
    says what it checks). RuntimeError when none was: the package's root was bypassed."""
    if not _PARSER:
        raise RuntimeError("no Timeline parser was handed to the loader: import scheduler_core "
                           "(its __init__ hands in scheduler_core.actions.timeline.parse_timeline)")
    return _PARSER[0](r, obj, admission, sc, base_index, check=check, notes=notes, deployments=deployments)


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
    target = created(act)
    if isinstance(target, (Pod, Node)):
        kind = "Pod" if isinstance(target, Pod) else "Node"
        target.uid = stable_uid(kind, getattr(target, "namespace", ""), target.name, f"@action[{index}]")
    return act


def created(act: TimelineAction) -> Any:
    """The Pod or Node object an action carries (addPod, addNode), else None."""
    for key in ("pod", "node"):
        obj = act.params.get(key)
        if isinstance(obj, (Pod, Node)):
            return obj
    return None
