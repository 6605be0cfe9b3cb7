"""setScoreWeight: a Score plugin's weight in a profile changed from the next cycle on (a
playground knob: upstream would restart the scheduler with a new configuration)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import ActionSpec, ParseContext
from scheduler_core.api.errors import ActionError
from scheduler_core.api.types import DEFAULT_SCHEDULER_NAME


class SetScoreWeight(ActionSpec):
    name = "setScoreWeight"
    fields = ("plugin", "weight", "profile")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        plugin = ctx.string(m, "plugin", required="a Score plugin's name")
        if m.get("weight") is None:
            raise ctx.err("weight", "Required value")
        weight = ctx.r.integer(m.get("weight"), f"{ctx.path}.weight")
        if not 1 <= weight <= 100:
            raise ctx.err("weight", f"Invalid value: {weight}: must be between 1 and 100")
        return {"plugin": plugin, "weight": weight, "profile": ctx.string(m, "profile") or DEFAULT_SCHEDULER_NAME}

    def check(self, sim: Any, params: dict[str, Any]) -> None:
        fwk = sim.scheduler.profiles.get(params["profile"])
        if fwk is None:
            raise ActionError(f'no profile with schedulerName "{params["profile"]}"')
        if params["plugin"] not in {pl.name for pl in fwk.score_plugins}:
            raise ActionError(f'"{params["plugin"]}" is not a Score plugin of profile '
                              f'"{params["profile"]}" (its Score plugins: '
                              f'{", ".join(pl.name for pl in fwk.score_plugins)})')

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.scheduler.set_score_weight(params["profile"], params["plugin"], params["weight"])


SPEC = SetScoreWeight()
