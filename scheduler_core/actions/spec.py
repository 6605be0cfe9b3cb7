"""What a cluster action is: its fields, how a Timeline entry or a live action is parsed, the
objects it names, what else it checks, and what it does to a running simulation.

One `ActionSpec` per action kind, one module per spec (scheduler_core/actions/<kind>.py), all in
one registry (scheduler_core/actions/registry.py). The loader parses with `parse` and replays
`refs` over the timeline's names; the simulation checks `refs` and `check` against the live
cluster, then `apply`s; the web's preflight checks `refs` against a stored view. An action whose
work is not one API call (a controller's scale step, a descheduling pass, a drain over time) takes
the whole live or due path with `live` / `due`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from scheduler_core.actions.names import NameSet, Ref
from scheduler_core.api.errors import ScenarioError

if TYPE_CHECKING:
    from scheduler_core.actions.refusal import TimelineRefusal
    from scheduler_core.api.scenario import TimelineAction
    from scheduler_core.loader.admission import PriorityAdmission
    from scheduler_core.loader.limits import Limits
    from scheduler_core.loader.reader import FieldReader
    from scheduler_core.loader.strict import NotSimulated

__all__ = ["ActionSpec", "NodeActionSpec", "ParseContext"]


@dataclass
class ParseContext:
    """Where one action sits in its Timeline document, and what parsing its objects needs.

    `path`: "actions[3]"; `position`: 3; `base_index`: the first creation index of the
    timeline's objects; `admission`: the scenario's PriorityClasses; `notes`: fields the
    playground does not model, collected."""

    r: FieldReader
    path: str
    position: int
    base_index: int
    admission: PriorityAdmission
    notes: NotSimulated

    def err(self, field: str, reason: str) -> ScenarioError:
        """A located error on one of the action's fields."""
        return self.r.err(f"{self.path}.{field}", reason)

    def string(self, m: dict[str, Any], field: str, *, required: str | None = None) -> str:
        """The string field (""/absent -> "" or, with `required`, a Required value error)."""
        value = self.r.string(m.get(field), f"{self.path}.{field}")
        if not value and required is not None:
            raise self.err(field, f"Required value{': ' + required if required else ''}")
        return value


class ActionSpec:
    """The base every action kind specialises. `name`: the `action` value; `fields`: the
    fields it may have besides `at` and `action`."""

    name: ClassVar[str]
    fields: ClassVar[tuple[str, ...]]

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        """The action's params, validated (a ScenarioError located on the field otherwise)."""
        raise NotImplementedError

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        """The objects the action names (checked everywhere by names.first_missing)."""
        return ()

    def replay_warning(self, params: dict[str, Any], names: NameSet) -> tuple[str, str] | None:
        """A load warning about the action at its place in the timeline: (field, text)."""
        return None

    def check(self, sim: Any, params: dict[str, Any]) -> None:
        """What the live cluster must allow beyond the names (ActionError otherwise)."""

    def conflict(self, params: dict[str, Any], cluster: Any) -> TimelineRefusal | None:
        """The API server's refusal of a due timeline action beyond a missing name."""
        return None

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        """Make the change on the running simulation (checked already)."""
        raise NotImplementedError

    def live(self, sim: Any, obj: dict[str, Any], index: int,
             limits: Limits | None) -> TimelineAction | None:
        """The whole live path for an action that is more than one change (None: the usual path,
        parse then check then apply)."""
        return None

    def due(self, sim: Any, action: TimelineAction) -> bool:
        """The whole due path of a timeline action that is more than one change (False: the
        usual path)."""
        return False


class NodeActionSpec(ActionSpec):
    """An action on one existing Node named by its `node` field (cordon, taints, labels...)."""

    def parse_node(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {"node": ctx.string(m, "node", required="")}

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return self.parse_node(ctx, m)

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Node", params["node"], "node"),)
