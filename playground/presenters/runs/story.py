"""Plain language for one screen: the status bar's outcome, why the popped pod was first and
which queue it left, and "what just happened": one paragraph generated from the events shown.
Every sentence is read off the engine's events and views; nothing re-derives a decision."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.selectors.points import POINT_LABELS
from playground.templatetags.text_tags import plural
from scheduler_core.events.compact import feasible_nodes, iter_verdicts

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen


def _name(key: str | None) -> str:
    text = str(key or "")
    return text.split("/", 1)[1] if text.startswith("default/") else text


def _secs(value: Any) -> str:
    return f"{float(value or 0):g}s"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def outcome(screen: Screen) -> str:
    """The status bar's one-line result of the frame, as of the point revealed; what fell due at
    the start of the step (a timeline action, an eviction) is named first, not hidden."""
    due = [f"{a.get('action')} at {_secs(a.get('time'))}" for a in screen.all("cluster_action")]
    due += [
        f"{_name(d.get('pod'))} evicted"
        for d in screen.all("pod_deleted")
        if d.get("by") == "TaintManagerEviction"
    ]
    result = _outcome(screen)
    return ", ".join(due) + ", then " + result if due and screen.frame.result != "action" else result


def _outcome(screen: Screen) -> str:
    frame = screen.frame
    started = screen.first("cycle_started")
    if frame.result == "start":
        return "start"
    if frame.result == "clock":
        return f"the clock jumped to {_secs(frame.clock)}"
    if frame.result == "action":
        return "cluster action: " + str((frame.unit.get("action") or {}).get("action", ""))
    if frame.result == "settled":
        return "settled: nothing more can happen"
    if frame.result == "max-time":
        return "stopped at max-time"
    if started is None:
        return f"cycle {frame.cycle}"
    if screen.partial:
        current = POINT_LABELS[screen.point_reached] if screen.reveal else ""
        return f"cycle {frame.cycle}: {started['pod']} at {current} (outcome not revealed yet)"
    selected = screen.first("selected")
    bound = screen.first("bound")
    if bound is not None:
        return f"cycle {frame.cycle}: {bound['pod']} → {bound['node']}"
    if selected is not None:
        return f"cycle {frame.cycle}: {selected['pod']} → {selected['node']} (not bound yet)"
    return f"cycle {frame.cycle}: {started['pod']} not scheduled"


def pop(screen: Screen) -> dict[str, Any] | None:
    """Which queue the cycle's pod left, and why it was the one popped (QueueSort order)."""
    started = screen.first("cycle_started")
    if started is None:
        return None
    pod = started["pod"]
    move = next(
        (e for e in screen.frame_events if e["type"] == "queue_move" and e.get("pod") == pod and e.get("to") == "none"),
        None,
    )
    source = (move or {}).get("from") or "activeQ"
    waiting = (screen.before.get("queues") or {}).get(source, [])
    me = next((p for p in waiting if p.get("pod") == pod), None)
    others = [p for p in waiting if p.get("pod") != pod]
    if source == "backoffQ":
        left = ""
        if me is not None and me.get("backoffExpiry") is not None:
            remaining = float(me["backoffExpiry"]) - float(started.get("time") or screen.clock)
            if remaining > 0:
                left = f" Its backoff had {_secs(remaining)} left, cut short."
        why = (
            "activeQ was empty, so instead of idling the scheduler popped the head of backoffQ "
            "(the pod whose backoff ends first) before its backoff expired: upstream's PopFromBackoffQ, "
            "on by default since v1.33." + left
        )
    elif not others:
        why = "It was the only pod in activeQ."
    else:
        priority = started.get("priority")
        same = [p for p in others if p.get("priority") == priority]
        why = (
            "activeQ pops in QueueSort order (PrioritySort): the highest priority first, then the pod "
            f"that entered the queue first. {_name(pod)} has priority {priority}"
        )
        lower = len(others) - len(same)
        parts = []
        if lower:
            parts.append(f"{plural(lower, 'pod')} waiting with a lower priority")
        if same:
            parts.append(f"{plural(len(same), 'pod')} with the same priority that entered the queue later")
        why += (" — ahead of " + _join(parts) if parts else "") + "."
    return {"queue": source, "label": f"Pop from {source}", "why": why}


def _cycle_sentences(screen: Screen) -> list[str]:
    started = screen.first("cycle_started")
    if started is None:
        return []
    pod = _name(started["pod"])
    info = pop(screen) or {}
    out = [f"Cycle {started['cycle']} took {pod} from {info.get('queue', 'activeQ')} (attempt {started.get('attempts')})."]
    matrix = screen.first("filter_verdicts")
    if matrix is not None:
        feasible = feasible_nodes(matrix)
        evaluated = matrix.get("nodes") or []
        rejected: dict[str, list[str]] = {}
        for node, verdicts in iter_verdicts(matrix):
            for plugin, verdict in verdicts.items():
                if verdict.get("code") not in ("Success", "Skip", "NotEvaluated", "Cancelled"):
                    rejected.setdefault(plugin, []).append(node)
        sentence = f"Filter checked {plural(len(evaluated), 'node')}: {len(feasible)} passed"
        if rejected:
            sentence += "; " + "; ".join(f"{pl} rejected {_join(nodes)}" for pl, nodes in rejected.items())
        out.append(sentence + ".")
    for call in screen.all("extender_call"):
        removed = (call.get("changed") or {}).get("removed") or []
        if call.get("verb") == "filter" and removed:
            out.append(f"The extender removed {_join(removed)}.")
    preemption = screen.first("preemption")
    if preemption is not None:
        if preemption.get("chosen"):
            victims = [_name(v.get("pod")) for v in screen.all("victim_deleted")]
            out.append(
                f"No node fit, so DefaultPreemption looked for room: it chose {preemption['chosen']} "
                f"({preemption.get('why')}) and deleted {_join(victims) or 'no pod'}."
            )
        else:
            out.append(f"No node fit, and preemption could not help: {preemption.get('why')}.")
    for nominated in screen.all("nominated"):
        if nominated.get("node"):
            out.append(f"{_name(nominated['pod'])} is nominated to {nominated['node']} and waits for its next attempt.")
    selected = screen.first("selected")
    if selected is not None:
        ties = selected.get("ties") or []
        tie = f" (a tie of {len(ties)}, broken by walk order)" if len(ties) > 1 else ""
        score = f" with the top score {selected['score']}" if selected.get("score") is not None else ""
        out.append(f"{selected['node']} won{score}{tie}.")
    bound = screen.first("bound")
    if bound is not None:
        out.append(f"{_name(bound['pod'])} was bound to {bound['node']}.")
    elif screen.partial:
        current = POINT_LABELS[screen.point_reached] if screen.reveal else ""
        out.append(f"The cycle is paused at {current}: step on to see the rest.")
    else:
        moves = [m for m in screen.all("queue_move") if m.get("pod") == started["pod"] and m.get("to") != "none"]
        if moves:
            last = moves[-1]
            because = ""
            if last.get("hints"):
                seen = "; ".join(f"{h.get('event')}: {h.get('plugin')} said {h.get('hint')}" for h in last["hints"])
                because = (f" Events seen while it was in flight were put to its rejecting plugins' queueing hints "
                           f"({seen}): {last.get('strategy')}.")
            out.append(f"The attempt failed, so {pod} went back to {last['to']}.{because}")
    return out


def _hint_sentences(screen: Screen) -> list[str]:
    """The queueing hints behind this frame's moves caused by cluster events (a failed attempt's
    own move is told with the cycle), and the events whose hints kept pods waiting."""
    out = []
    for move in screen.all("queue_move"):
        if not move.get("strategy") or not move.get("event"):
            continue
        said = ", ".join(f"{h.get('plugin')}'s hint said {h.get('hint')}" for h in move.get("hints") or [])
        out.append(f"{move['event']}: {said}, so {_name(move.get('pod'))} moved from {move.get('from')} to "
                   f"{move.get('to')} ({move['strategy']}).")
    for skipped in screen.all("queue_hints_skipped"):
        count = int(skipped.get("count") or 0)
        out.append(f"{skipped.get('event')}: every queueing hint asked said QueueSkip, so "
                   f"{count} pod{'s' if count != 1 else ''} stayed unschedulable, no cycle wasted.")
    return out


def narrative(screen: Screen) -> str:
    """What just happened in this frame (as far as it is revealed), in plain words."""
    frame = screen.frame
    out: list[str] = []
    for action in screen.all("cluster_action"):
        out.append(f"Cluster change at {_secs(action.get('time'))}: {action.get('action')}.")
    for evicted in screen.all("evicted"):
        out.append(f"{_name(evicted.get('pod'))} was evicted from {evicted.get('node')} (NoExecute taint).")
    for deleted in screen.all("pod_deleted"):
        if deleted.get("by") == "TaintManagerEviction":
            out.append(f"The taint manager deleted {_name(deleted.get('pod'))} from {deleted.get('node')}.")
    for change in screen.all("node_lifecycle"):
        out.append(f"Node {change.get('node')}: {change.get('change')} (by {change.get('by')}).")
    out.extend(_hint_sentences(screen))
    out.extend(_descheduler_sentences(screen))
    if frame.result == "start":
        out.append("The run starts: every pod without a node waits in activeQ. Step to run the first scheduling cycle.")
    elif frame.result == "clock":
        out.append(
            f"activeQ was empty, so no cycle ran: the virtual clock jumped to the next timer, {_secs(frame.clock)}. "
            "What is due then happens at the start of the next step"
            + (": " + _join(_due(screen)) if _due(screen) else " (a backoff ending, an eviction, a timeline action)")
            + "."
        )
    elif frame.result == "settled":
        out.append(settled_text(screen))
    elif frame.result == "max-time":
        out.append(max_time_text(screen))
    out.extend(_cycle_sentences(screen))
    return " ".join(out)


def _descheduler_sentences(screen: Screen) -> list[str]:
    """A descheduling pass in this frame: what it evicted, by which strategy, and the
    replacements the controllers made (they wait in activeQ)."""
    out: list[str] = []
    for done in screen.all("descheduler_finished"):
        how = "An interval pass of the descheduler" if done.get("trigger") == "interval" else "The descheduler"
        evicted = [e for e in screen.all("descheduler_evicted") if e.get("trigger") == done.get("trigger")]
        if not evicted:
            out.append(f"{how} ran and evicted nothing." + (f" {done['note']}" if done.get("note") else ""))
            continue
        moves = [f"{_name(e.get('pod'))} from {e.get('node')} ({e.get('strategy')})" for e in evicted]
        out.append(f"{how} evicted {_join(moves)}.")
        if done.get("recreated"):
            out.append(f"Their controllers created {_join([_name(k) for k in done['recreated']])}, "
                       "now waiting in activeQ for the scheduler.")
    return out


def _due(screen: Screen) -> list[str]:
    """What the view says falls due at the screen's clock (evictions, backoffs ending)."""
    clock = screen.clock
    due = [
        f"{_name(e.get('pod'))} is evicted from {e.get('node')}"
        for e in screen.view.get("evictions", [])
        if float(e.get("at", clock + 1)) <= clock
    ]
    due += [
        f"{_name(p.get('pod'))}'s backoff ends"
        for p in (screen.view.get("queues") or {}).get("backoffQ", [])
        if p.get("backoffExpiry") is not None and float(p["backoffExpiry"]) <= clock
    ]
    return due


def settled_text(screen: Screen) -> str:
    pending = [p for p in screen.view.get("pods", []) if p.get("status") == "Pending"]
    text = "The run has settled: activeQ is empty and no timer is left (no backoff, eviction or timeline action), so no step can change anything."
    if pending:
        text += (
            f" {plural(len(pending), 'pod')} stay{'s' if len(pending) == 1 else ''} Pending until the cluster changes "
            "(add a node, delete a pod, remove a taint: use “Change the cluster now”)."
        )
    return text


def max_time_text(screen: Screen) -> str:
    return (
        f"The run stopped at its max-time ({_secs(screen.run.max_time if screen.run else 0)} of virtual time): "
        "the next timer is later than that, so stepping does not move the clock past it."
    )


STEPS_BETWEEN_LIMIT = 30


def steps_between(screen: Screen) -> list[dict[str, Any]]:
    """When the last press ran several steps (Advance clock, Play) and the screen shows its last
    one, one line per step it ran: nothing that happened in between is hidden."""
    from playground.models import RunAction, RunEvent

    if screen.pinned or screen.run is None:
        return []
    action = (
        screen.run.actions.filter(state=RunAction.STATE_DONE, last_step=screen.step).order_by("-index").first()
    )
    if action is None or action.first_step is None or action.last_step - action.first_step < 1:
        return []
    first = max(action.first_step, action.last_step - STEPS_BETWEEN_LIMIT + 1)
    lines: dict[int, list[str]] = {s: [] for s in range(first, action.last_step + 1)}
    kinds = ["cycle_started", "bound", "clock", "cluster_action", "preemption", "pod_deleted", "settled",
             "descheduler_finished"]
    for step, data in (
        RunEvent.objects.filter(run=screen.run, step__gte=first, step__lte=action.last_step, type__in=kinds)
        .order_by("seq")
        .values_list("step", "data")
    ):
        kind = data["type"]
        if kind == "cycle_started":
            lines[step].append(f"cycle {data['cycle']}: {_name(data['pod'])}")
        elif kind == "bound":
            lines[step].append(f"bound to {data['node']}")
        elif kind == "clock":
            lines[step].append(f"the clock jumped to {_secs(data.get('to'))}")
        elif kind == "cluster_action":
            lines[step].append(f"cluster change: {data.get('action')}")
        elif kind == "descheduler_finished":
            lines[step].append(f"descheduler: {len(data.get('evicted') or [])} evicted")
        elif kind == "preemption" and data.get("chosen"):
            lines[step].append(f"preemption on {data['chosen']}")
        elif kind == "pod_deleted":
            lines[step].append(f"{_name(data.get('pod'))} deleted ({data.get('by')})")
        elif kind == "settled":
            lines[step].append("settled")
    return [{"step": s, "text": _step_text(t)} for s, t in lines.items()]


STEP_TEXT_LIMIT = 8  # happenings written out per step; a fast-forward's step holds thousands of cycles


def _step_text(happenings: list[str]) -> str:
    """One step's line: its happenings, the first STEP_TEXT_LIMIT written out and the rest
    counted (a fast-forward stores up to 2,000 cycles as one step; written out, its line weighed
    ~430 KB at 5,000 x 10,000 and the live update was too large to send)."""
    if not happenings:
        return "no change"
    if len(happenings) <= STEP_TEXT_LIMIT:
        return "; ".join(happenings)
    rest = happenings[STEP_TEXT_LIMIT:]
    cycles = sum(1 for h in rest if h.startswith("cycle "))
    binds = sum(1 for h in rest if h.startswith("bound to "))
    return "; ".join(happenings[:STEP_TEXT_LIMIT]) + (
        f"; … and {len(rest):,} more ({cycles:,} cycles, {binds:,} binds: the event log has each)"
    )
