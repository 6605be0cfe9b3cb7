"""When a run's descheduling passes happen: the `runDescheduler` run action ("run the
descheduler now", also a Timeline action at a given time) and, when the policy sets `deschedulingInterval`, every interval of virtual
time (the first one interval after the start, as a descheduler started with the cluster would
first find its pods still pending).

A pass run by the action restarts the interval's count. An interval pass that evicts nothing leaves the cluster as it found it, so another pass over the
same cluster would evict nothing either: the interval then rests (a run can settle) until the
cluster changes again (a scheduling cycle, an action).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.errors import ActionError, ScenarioError
from scheduler_core.api.scenario import TimelineAction
from scheduler_core.controllers.timers import Controller

from .descheduler import run_descheduler

ACTION = "runDescheduler"


def _policy(sim: Any) -> Any:
    return getattr(sim.scenario, "descheduler_policy", None)


def run_action(sim: Any, obj: dict[str, Any]) -> TimelineAction:
    """The live action {"action": "runDescheduler"}: one pass now. ActionError when the
    scenario has no DeschedulerPolicy."""
    extra = sorted(set(obj) - {"action"})
    if extra:
        raise ScenarioError(f'unknown field for action "{ACTION}"', file="<action>", kind=ACTION, field=extra[0])
    policy = _policy(sim)
    if policy is None:
        raise ActionError("this scenario has no DeschedulerPolicy document (apiVersion descheduler/v1alpha2): "
                          "add one to say which strategies the descheduler runs")
    sim.sink.emit("cluster_action", action=ACTION, params={})
    result = run_descheduler(sim, policy, trigger="manual")
    rearm(sim)
    if policy.descheduling_interval:  # the interval counts from the last pass
        sim.desched_next = sim.clock.now() + policy.descheduling_interval
    return TimelineAction(time=sim.clock.now(), action=ACTION,
                          params={"evicted": result.evicted, "recreated": result.recreated})


def run_timeline(sim: Any) -> None:
    """A Timeline's `runDescheduler` action (the loader made sure the scenario has a policy)."""
    sim.sink.emit("cluster_action", action=ACTION, params={})
    run_descheduler(sim, _policy(sim), trigger="timeline")
    rearm(sim)


def start(sim: Any) -> None:
    policy = _policy(sim)
    interval = policy.descheduling_interval if policy is not None else None
    sim.desched_next = sim.clock.now() + interval if interval else None
    sim.desched_resting = False


def rearm(sim: Any) -> None:
    """The cluster changed: an interval pass may find work again."""
    if sim.desched_resting:
        sim.desched_resting = False


def next_pass(sim: Any) -> float | None:
    """When the next interval pass is due (None: no interval, or resting)."""
    t = sim.desched_next
    if t is None or sim.desched_resting:
        return None
    return t


def run_due(sim: Any) -> None:
    t = next_pass(sim)
    now = sim.clock.now()
    if t is None or t > now:
        return
    policy = _policy(sim)
    result = run_descheduler(sim, policy, trigger="interval")
    sim.desched_next = now + policy.descheduling_interval
    sim.desched_resting = not result.evicted


class DeschedulerTimer(Controller):
    """The interval passes, as one of the run's controllers (controllers/timers.py); the state
    (`desched_next`, `desched_resting`) stays on the simulation, where the action sets it."""

    name = "descheduler"

    @classmethod
    def for_run(cls, api: Any) -> DeschedulerTimer:
        return cls()

    def next_wakeup(self, sim: Any) -> float | None:
        return next_pass(sim)

    def run_due(self, sim: Any, now: float) -> bool:
        """An interval pass; its evictions are reported as they happen (no settling anew)."""
        run_due(sim)
        return False


def view(sim: Any) -> dict[str, Any] | None:
    """The run's descheduler as the run page shows it (None: the scenario has no policy)."""
    policy = _policy(sim)
    if policy is None:
        return None
    return {"profiles": [{"name": p.name, "deschedule": list(p.plugins.deschedule.enabled),
                          "balance": list(p.plugins.balance.enabled)} for p in policy.profiles],
            "interval": policy.descheduling_interval, "next": next_pass(sim)}
