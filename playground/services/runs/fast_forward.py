"""Fast-forward: "Run to the end", "Run to cycle N", "Run to time T", without drawing each step.

A Play stores one frame per engine step, and each frame describes the whole cluster
(`Simulation.view`, about 10 ms at 2,000 nodes x 4,000 pods, more than the step itself), so a
2,000 x 4,000 run played at full speed for minutes. A fast-forward is a Play action with a
target (`params`: {"to": "end" | "cycle" | "time", "value": N}); the worker executes it here:

- while activeQ holds a pod, the steps are one *unit* (`Engine.execute_steps`: {"op": "steps",
  "count": n}), so one frame, one view and one delta for the lot; every event is still
  stored (RunEvent rows of that frame). The unit is replayed like any other on a rebuild or a
  fork (`engine.apply_unit`), so the run is the same function of its log;
- each slice (SLICE_SECONDS of work) ends with one plain step, so the frame a page opens at the
  head is an ordinary one (its events one cycle's, not thousands), and is committed with one
  `run.updated`: the page shows how far it got (cycle, step) and lands on the final state;
- between slices it does what a Play does: it stops when "Pause" was pressed, and gives the
  worker process to another client's waiting action (or another play's slice), continuing
  behind it; a task also hands over after TASK_SECONDS, so no task nears its soft time limit
  (tasks/limits.py) and nothing committed is lost when one is reached.

Steps near the target are plain steps: a run to cycle N stops with cycle N in its own frame,
and a run to time T lets the clock reach T after everything due until then.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from playground.models import Run, RunAction
from playground.services.runs.errors import FieldError

if TYPE_CHECKING:
    from playground.infra.lease import RunLease
    from playground.services.quotas import Charger
    from playground.services.runs.engine import Engine

TARGETS = ("end", "cycle", "time")
SLICE_SECONDS = float(os.environ.get("PLAYGROUND_FAST_FORWARD_SLICE_SECONDS", "1.0"))  # CPU s between commits
CHUNK_STEPS = 2000  # steps in one frame at most (its events are read together when a page opens it)
TASK_SECONDS = 30.0  # a task hands over (a continuation task goes on) after this much work
MAX_CYCLE = 10_000_000  # a "run to cycle" target at most (the form's bound; nothing runs that long)
FINISHED = ("settled", "max-time")


def fast_forward_params(to: str, value: Any, *, run: Run) -> dict[str, Any]:
    """The Play action's params for a fast-forward form, checked before anything is queued.
    `to`: "end", "cycle" or "time"; `value` the form's number (cycle: a whole number past the
    run's current cycle; time: virtual seconds past its clock, up to its max time). FieldError
    naming the field ("cycle" or "time") and why."""
    if to not in TARGETS:
        raise FieldError("to", f"to: {to!r} is not one of {', '.join(TARGETS)}.")
    if to == "end":
        return {"to": "end"}
    raw = "" if value is None else str(value).strip()
    if to == "cycle":
        try:
            cycle = int(raw)
        except ValueError:
            raise FieldError("cycle", f"cycle: {raw!r} is not a whole number.") from None
        if not 1 <= cycle <= MAX_CYCLE:
            raise FieldError("cycle", f"cycle: {cycle} is out of range: from 1 to {MAX_CYCLE:,}.")
        if cycle <= run.cycle:
            raise FieldError("cycle", f"cycle: the run is at cycle {run.cycle} already; give a later one.")
        return {"to": "cycle", "value": cycle}
    try:
        seconds = float(raw)
    except ValueError:
        raise FieldError("time", f"time: {raw!r} is not a number of seconds.") from None
    if not seconds == seconds or not run.clock < seconds <= run.max_time:  # NaN, or out of range
        raise FieldError(
            "time", f"time: {raw} s is out of range: after the clock ({run.clock:g} s), up to {run.max_time:g} s."
        )
    return {"to": "time", "value": seconds}


def describe(params: dict[str, Any]) -> str:
    """A fast-forward's target in words, for the status line ("run to cycle 40")."""
    to = params.get("to")
    if to == "cycle":
        return f"run to cycle {params['value']}"
    if to == "time":
        return f"run to {float(params['value']):g} s"
    return "run to the end"


def fast_forward(
    run: Run, action: RunAction, engine: Any, lease: RunLease, queues: list[str] | None, charger: Charger,
) -> Engine | None:
    """Execute the fast-forward `action` (a Play with a target) from where the run is, in
    slices (module doc). Leaves the action "pending" when it hands the process over (the
    caller queues its continuation), else done (or failed when the quota is spent)."""
    from playground.infra.queues import CONTINUATION_PRIORITY, others_waiting
    from playground.services.runs import dispatch, units

    run_id = run.pk
    if run.pause_requested or run.status == Run.STATUS_SETTLED:
        result = "paused" if run.pause_requested else "settled"
        extra = units.settled_outcome(RunAction.KIND_PLAY) if result == "settled" else {
            "pause_requested": False, "status": Run.STATUS_IDLE}
        units.commit(run_id, engine, action, state=RunAction.STATE_DONE, result=result, extra=extra)
        return engine
    engine = units.engine_for(run, engine)
    if action.state != RunAction.STATE_RUNNING:
        units.commit(run_id, engine, action, state=RunAction.STATE_RUNNING,
                  extra={"status": Run.STATUS_PLAYING, "reveal": None}, lease=lease)
    to, value = action.params.get("to"), action.params.get("value")
    target_cycle = int(value) if to == "cycle" else None
    max_time = min(float(value), run.max_time) if to == "time" else run.max_time
    queue = engine.sim.scheduler.queue

    def reached() -> bool:
        return target_cycle is not None and queue.scheduling_cycle >= target_cycle

    def near() -> bool:  # the next cycle is the target's: a plain step of its own
        return target_cycle is not None and queue.scheduling_cycle >= target_cycle - 1

    task_started = looked = time.monotonic()
    slice_cpu = time.thread_time()  # slices are CPU seconds of this thread: a busy machine commits no more often
    spent: str | None = None
    waiting = False  # a client's action waits for this worker process
    result = ""
    past = to == "time" and engine.sim.clock.now() >= max_time  # queued behind actions that got there
    while not reached() and not past:
        nodes = units.node_count(engine)  # what a step costs against the quota (a timeline may add nodes)
        taken = [1]  # steps in this unit so far (the first is paid for below)

        def go_on(last: str, taken: list[int] = taken, slice_cpu: float = slice_cpu, nodes: int = nodes) -> bool:
            nonlocal spent, waiting, looked
            if (last != "cycle" or queue.active_len() == 0 or near() or taken[0] >= CHUNK_STEPS
                    or time.thread_time() - slice_cpu >= SLICE_SECONDS):
                return False
            now = time.monotonic()
            if queues and now - looked >= units.YIELD_LOOK_SECONDS:
                looked = now
                if others_waiting(queues, below=CONTINUATION_PRIORITY):
                    waiting = True  # a client's Step or change: it goes first, after this slice's commit
                    return False
            taken[0] += 1
            spent = charger.charge(nodes)
            return spent is None

        if queue.active_len() > 0 and not near():
            spent = charger.charge(nodes)
            if spent:
                break
            result = engine.execute_steps(max_time, action.index, go_on)
            if spent or result in FINISHED:
                break
        spent = charger.charge(nodes)
        if spent:
            break
        result = engine.execute({"op": "step", "max_time": max_time}, action.index)
        if result in FINISHED or reached():
            break
        if not waiting and time.thread_time() - slice_cpu < SLICE_SECONDS:
            continue
        units.commit(run_id, engine, action, state=RunAction.STATE_RUNNING, lease=lease, playing=True)
        if Run.objects.filter(pk=run_id).values_list("pause_requested", flat=True).get():
            result = "paused"
            break
        if queues is not None and (
            waiting or time.monotonic() - task_started >= TASK_SECONDS or (queues and others_waiting(queues))
        ):
            # Others wait (or this task has worked long enough): they go first, it continues behind them.
            units.commit(run_id, engine, action, state=RunAction.STATE_PENDING, lease=lease, playing=True)
            return engine
        slice_cpu = time.thread_time()
    if to == "time" and not spent and result != "paused" and engine.sim.clock.now() < max_time:
        # What is left is what "Let the clock run" does: the leftover flush on the way, the clock to T.
        units.run_clock_for(engine, max_time - engine.sim.clock.now(), run.max_time, action.index)
        result = "max-time"
    if reached():
        result = f"cycle {queue.scheduling_cycle}"
    elif to == "time" and (past or result == "max-time"):
        result = f"clock {engine.sim.clock.now():g}s"
    elif result == "settled":  # not the bare word, which the status line reads as "nothing to do"
        result = f"settled at cycle {queue.scheduling_cycle}, clock {engine.sim.clock.now():g}s"
    status = Run.STATUS_SETTLED if engine.last_result == "settled" else Run.STATUS_IDLE
    units.commit(
        run_id, engine, action, state=RunAction.STATE_FAILED if spent else RunAction.STATE_DONE,
        result=spent or result, extra={"pause_requested": False, "status": status}, lease=lease,
    )
    dispatch.clear_continuation(run_id)
    return engine
