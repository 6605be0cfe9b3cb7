"""runDescheduler: one pass of the scenario's DeschedulerPolicy now (scheduler_core.descheduler),
the evictions a descheduler Deployment would make at its next interval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scheduler_core.actions.spec import ActionSpec, ParseContext

if TYPE_CHECKING:
    from scheduler_core.api.scenario import TimelineAction
    from scheduler_core.loader.limits import Limits


class RunDescheduler(ActionSpec):
    name = "runDescheduler"
    fields = ()

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {}  # the scenario's DeschedulerPolicy (checked once the scenario is built)

    def live(self, sim: Any, obj: dict[str, Any], index: int, limits: Limits | None) -> TimelineAction:
        from scheduler_core.descheduler import schedule

        return schedule.run_action(sim, obj)

    def due(self, sim: Any, action: TimelineAction) -> bool:
        from scheduler_core.descheduler import schedule

        schedule.run_timeline(sim)
        return True


SPEC = RunDescheduler()
