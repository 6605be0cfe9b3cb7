"""Reading runs: one run by its share token, who may drive it, and what a screen of it shows.

Everything here reads stored frames (the engine's view after each unit) and stored events; the
templates render these structures. Nothing re-derives a scheduler decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import Http404

from playground.models import Run, RunAction, RunEvent, RunFrame
from playground.selectors.scenarios import Actor

# "Step extension point" reveals a cycle's events one group at a time, in this order.
POINT_LABELS = {
    "queue": "Pop from activeQ",
    "prefilter": "PreFilter",
    "filter": "Filter",
    "postfilter": "PostFilter (preemption)",
    "score": "PreScore / Score / Normalize",
    "select": "Select host",
    "bind": "Reserve / Permit / Bind",
}
POINT_ORDER = list(POINT_LABELS)
_GROUP_OF_TYPE = {
    "cycle_started": "queue",
    "prefilter": "prefilter",
    "filter_verdicts": "filter",
    "nominated_node_tried": "filter",
    "postfilter": "postfilter",
    "preemption": "postfilter",
    "victim_deleted": "postfilter",
    "scores": "score",
    "selected": "select",
    "assumed": "bind",
    "extension_point": "bind",
    "bound": "bind",
    "permit_wait": "bind",
}
EVENTS_TABLE_LIMIT = 200
LOG_LIMIT = 400


def event_groups(events: list[dict[str, Any]]) -> list[str]:
    """Each event's extension-point group: its own, or the group of the event before it."""
    current = "queue"
    groups = []
    for event in events:
        group = _GROUP_OF_TYPE.get(event["type"])
        if group is not None and POINT_ORDER.index(group) >= POINT_ORDER.index(current):
            current = group
        groups.append(current)
    return groups


def point_groups(events: list[dict[str, Any]]) -> list[str]:
    """The groups a frame's events fall into, in order (empty when the frame ran no cycle)."""
    if not any(e["type"] == "cycle_started" for e in events):
        return []
    return [g for g in POINT_ORDER if g in set(event_groups(events))]


def can_control(*, run: Run, actor: Actor) -> bool:
    """The person who started (or forked) the run drives it; everyone else watches."""
    if actor.user_id is not None and run.owner_id == actor.user_id:
        return True
    return bool(actor.session_token) and run.owner_token == actor.session_token


def run_by_share_token(*, token: str) -> Run:
    try:
        return Run.objects.select_related("scenario", "forked_from").get(share_token=token)
    except Run.DoesNotExist:
        raise Http404("No such run") from None


def runs_of_scenario(*, scenario: Any, actor: Actor, limit: int = 10) -> list[Run]:
    runs = Run.objects.filter(scenario=scenario)
    if actor.user_id is not None:
        runs = runs.filter(owner_id=actor.user_id) | runs.filter(owner_token=actor.session_token or "-")
    elif actor.session_token:
        runs = runs.filter(owner_token=actor.session_token)
    else:
        return []
    return list(runs.order_by("-created_at")[:limit])


def frame_for(*, run: Run, step: int | None = None, cycle: int | None = None) -> RunFrame:
    """The frame at `step`, or the one that ran scheduling cycle `cycle` (else the last frame at or
    before it), or the head."""
    frames = run.frames
    if step is not None:
        frame = frames.filter(step__lte=max(step, 0)).order_by("-step").first()
    elif cycle is not None:
        frame = (
            frames.filter(result="cycle", cycle=cycle).order_by("step").first()
            or frames.filter(cycle__lte=cycle).order_by("-step").first()
        )
    else:
        frame = frames.filter(step__lte=run.head_step).order_by("-step").first()
    if frame is None:
        raise Http404("This run has no such step")
    return frame


# ---- one screen ---------------------------------------------------------------------------------------


def _fmt_bytes(value: float) -> str:
    for unit, size in (("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
        if value >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:g}"


def _resource_bars(node: dict[str, Any]) -> list[dict[str, Any]]:
    bars = []
    alloc, req = node.get("allocatable", {}), node.get("requested", {})
    for name in ("cpu", "memory"):
        total = float(alloc.get(name) or 0)
        used = float(req.get(name) or 0)
        pct = min(100, round(used / total * 100)) if total else 0
        if name == "cpu":
            text = f"{used / 1000:g}/{total / 1000:g} cpu"
        else:
            text = f"{_fmt_bytes(used)}/{_fmt_bytes(total)} mem"
        bars.append({"name": name, "pct": pct, "text": text, "full": pct >= 100})
    pods_total = alloc.get("pods")
    if pods_total:
        bars.append(
            {
                "name": "pods",
                "pct": min(100, round(len(node.get("pods", [])) / pods_total * 100)),
                "text": f"{len(node.get('pods', []))}/{pods_total} pods",
                "full": False,
            }
        )
    return bars


def _where(view: dict[str, Any]) -> dict[str, str]:
    """pod -> where it is in a view (a queue, or a node), to show what moved between frames."""
    where: dict[str, str] = {}
    for queue in ("activeQ", "backoffQ", "unschedulable"):
        for item in view.get("queues", {}).get(queue, []):
            where[item["pod"]] = queue
    for node in view.get("nodes", []):
        for pod in node.get("pods", []):
            where[pod] = "node:" + node["name"]
        for pod in node.get("nominated", []):
            where.setdefault(pod, "nominated:" + node["name"])
    return where


@dataclass
class Screen:
    run: Run
    frame: RunFrame
    pinned: bool
    can_control: bool
    reveal: int | None
    groups: list[str]
    view: dict[str, Any]  # the state drawn in the queues and cluster panels
    previous: dict[str, Any]
    frame_events: list[dict[str, Any]]  # this frame's events, up to the revealed group
    k8s_events: list[dict[str, Any]] = field(default_factory=list)
    evicted: list[dict[str, Any]] = field(default_factory=list)
    shown_seq: int = 0  # the last event this screen shows

    # -- simple facts --------------------------------------------------------------------------
    @property
    def step(self) -> int:
        return self.frame.step

    @property
    def clock(self) -> float:
        return float(self.view.get("clock", 0.0))

    @property
    def cycle(self) -> int:
        return self.frame.cycle

    @property
    def head(self) -> bool:
        return self.frame.step == self.run.head_step

    @property
    def is_cycle(self) -> bool:
        return self.frame.result == "cycle"

    @property
    def share_query(self) -> str:
        if self.is_cycle:
            return f"cycle={self.frame.cycle}"
        return f"step={self.frame.step}"

    @property
    def point_labels(self) -> list[dict[str, Any]]:
        revealed = len(self.groups) if self.reveal is None else self.reveal
        return [
            {"key": g, "label": POINT_LABELS[g], "shown": i < revealed, "current": i == revealed - 1}
            for i, g in enumerate(self.groups)
        ]

    def _moved(self, pod: str, here: str) -> str:
        before = _where(self.previous).get(pod)
        if before == here:
            return ""
        return (before or "new").split(":")[0]

    # -- the panels ----------------------------------------------------------------------------
    @property
    def queues(self) -> dict[str, Any]:
        q = self.view.get("queues", {})
        clock = self.clock
        active = [dict(p, moved=self._moved(p["pod"], "activeQ")) for p in q.get("activeQ", [])]
        backoff = []
        for p in q.get("backoffQ", []):
            expiry = p.get("backoffExpiry")
            backoff.append(
                dict(
                    p,
                    moved=self._moved(p["pod"], "backoffQ"),
                    countdown=None if expiry is None else max(0.0, float(expiry) - clock),
                )
            )
        unschedulable = [dict(p, moved=self._moved(p["pod"], "unschedulable")) for p in q.get("unschedulable", [])]
        return {
            "activeQ": active,
            "backoffQ": backoff,
            "unschedulable": unschedulable,
            "inFlight": q.get("inFlight", []),
            "summary": q.get("summary", ""),
        }

    @property
    def nodes(self) -> list[dict[str, Any]]:
        nodes = []
        for node in self.view.get("nodes", []):
            here = "node:" + node["name"]
            nodes.append(
                dict(
                    node,
                    bars=_resource_bars(node),
                    pod_items=[
                        {"key": p, "moved": self._moved(p, here), "assumed": p in node.get("assumed", [])}
                        for p in node.get("pods", [])
                    ],
                    nominated_items=[
                        {"key": p, "moved": self._moved(p, "nominated:" + node["name"])}
                        for p in node.get("nominated", [])
                    ],
                )
            )
        return nodes

    @property
    def pods(self) -> list[dict[str, Any]]:
        return self.view.get("pods", [])

    @property
    def pending_pods(self) -> list[dict[str, Any]]:
        return [p for p in self.pods if p.get("status") == "Pending"]

    @property
    def evictions(self) -> list[dict[str, Any]]:
        clock = self.clock
        items = []
        for ev in self.view.get("evictions", []):
            at, created = float(ev["at"]), float(ev.get("createdAt", clock))
            span = max(at - created, 0.0)
            left = max(at - clock, 0.0)
            items.append(dict(ev, countdown=left, pct=100 if span == 0 else round((span - left) / span * 100)))
        return items

    def _first(self, type_: str) -> dict[str, Any] | None:
        return next((e for e in self.frame_events if e["type"] == type_), None)

    def _all(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.frame_events if e["type"] == type_]

    @property
    def cycle_started(self) -> dict[str, Any] | None:
        return self._first("cycle_started")

    @property
    def prefilters(self) -> list[dict[str, Any]]:
        return self._all("prefilter")

    @property
    def filter_matrix(self) -> dict[str, Any] | None:
        event = self._first("filter_verdicts")
        if event is None:
            return None
        verdicts = event.get("verdicts", {})
        plugins: list[str] = []
        for node_verdicts in verdicts.values():
            for plugin in node_verdicts:
                if plugin not in plugins:
                    plugins.append(plugin)
        feasible = set(event.get("feasible", []))
        rows = []
        for node in event.get("nodes", []):
            cells = []
            for plugin in plugins:
                verdict = verdicts.get(node, {}).get(plugin)
                cells.append(verdict or {"code": "not run"})
            rows.append({"node": node, "cells": cells, "feasible": node in feasible, "evaluated": True})
        for node in event.get("not_evaluated", []):
            rows.append({"node": node, "cells": [], "feasible": False, "evaluated": False})
        return {
            "event": event,
            "plugins": plugins,
            "rows": rows,
            "feasible_count": len(feasible),
            "not_evaluated": event.get("not_evaluated", []),
            "num_to_find": event.get("num_to_find"),
            "start_index": event.get("start_index"),
            "nominated_only": event.get("nominated_only", False),
            "nominated_tried": self._first("nominated_node_tried"),
        }

    @property
    def scores(self) -> dict[str, Any] | None:
        event = self._first("scores")
        if event is None:
            return None
        plugins = list(event.get("plugins", {}))
        totals = event.get("totals", {})
        selected = self._first("selected") or {}
        ties = set(selected.get("ties") or [])
        nodes = list(totals) or sorted({n for per in event["plugins"].values() for n in per})
        rows = []
        for node in sorted(nodes, key=lambda n: (-(totals.get(n) or 0), nodes.index(n))):
            cells = [event["plugins"][p].get(node) for p in plugins]
            rows.append(
                {
                    "node": node,
                    "cells": cells,
                    "total": totals.get(node),
                    "tie": node in ties,
                    "chosen": node == selected.get("node"),
                }
            )
        return {"plugins": plugins, "weights": event.get("weights", {}), "rows": rows}

    @property
    def selected(self) -> dict[str, Any] | None:
        return self._first("selected")

    @property
    def extender_calls(self) -> list[dict[str, Any]]:
        """HTTP extender calls of this cycle (filter, prioritize, preempt, bind) with their
        latency and what each changed, as the engine recorded them."""
        rows = []
        for e in self._all("extender_call"):
            changed = e.get("changed") or {}
            verb = e.get("verb")
            if verb == "filter":
                summary = ", ".join(
                    [f"removed {n}" for n in changed.get("removed", [])]
                    + [f"{n}: {r}" for n, r in (changed.get("failed") or {}).items()]
                    + [f"{n} (unresolvable): {r}" for n, r in (changed.get("failedAndUnresolvable") or {}).items()]
                ) or "kept every node"
            elif verb == "prioritize":
                summary = ", ".join(f"{n} +{w}" for n, w in (changed.get("weighted") or {}).items())
            elif verb == "preempt":
                summary = ", ".join(
                    [f"dropped node {n}" for n in changed.get("removed_nodes", [])]
                    + [f"spared {', '.join(v)} on {n}" for n, v in (changed.get("removed_victims") or {}).items()]
                ) or "kept every candidate"
            else:
                summary = f"bound to {changed.get('node')}" if changed.get("node") else ""
            rows.append({**e, "summary": summary})
        return rows

    @property
    def postfilters(self) -> list[dict[str, Any]]:
        return self._all("postfilter")

    @property
    def binding(self) -> list[dict[str, Any]]:
        return [
            e
            for e in self.frame_events
            if e["type"] in ("assumed", "extension_point", "bound", "permit_wait", "forgotten")
        ]

    @property
    def preemption(self) -> dict[str, Any] | None:
        event = self._first("preemption")
        if event is None:
            return None
        return {
            "event": event,
            "candidates": event.get("candidates", []),
            "chosen": event.get("chosen"),
            "why": event.get("why", ""),
            "victims_deleted": self._all("victim_deleted"),
            "nominated": [e for e in self._all("nominated") if e.get("pod") == event.get("pod")],
        }

    @property
    def failed_message(self) -> str:
        pod = (self.cycle_started or {}).get("pod")
        for e in self.frame_events:
            if e["type"] == "k8s_event" and e.get("reason") == "FailedScheduling" and e.get("object") == pod:
                return e.get("message", "")
        return ""

    @property
    def moves(self) -> list[dict[str, Any]]:
        return self._all("queue_move")


def _frame_events(run: Run, frame: RunFrame) -> list[dict[str, Any]]:
    return list(run.events.filter(step=frame.step).order_by("seq").values_list("data", flat=True))


def run_screen(*, run: Run, actor: Actor, step: int | None = None, cycle: int | None = None) -> Screen:
    """What a viewer sees: the head (live) or a pinned step/cycle (a share link, history)."""
    pinned = step is not None or cycle is not None
    frame = frame_for(run=run, step=step, cycle=cycle)
    events = _frame_events(run, frame)
    groups = point_groups(events)
    reveal = run.reveal if (not pinned or frame.step == run.head_step) and run.reveal is not None else None
    if pinned:
        reveal = None
    if reveal is not None and groups:
        reveal = max(1, min(reveal, len(groups)))
        shown = set(groups[:reveal])
        labels = event_groups(events)
        events = [e for e, g in zip(events, labels, strict=True) if g in shown]
    else:
        reveal = None
    previous_frame = run.frames.filter(step__lt=frame.step).order_by("-step").only("view").first()
    previous = previous_frame.view if previous_frame is not None else {}
    # While a cycle is only partly revealed, the queues and the cluster show the state before it.
    view = previous if (reveal is not None and previous) else frame.view
    last_seq = frame.last_seq if reveal is None else (events[-1]["seq"] if events else frame.first_seq - 1)
    k8s = list(
        RunEvent.objects.filter(run=run, type="k8s_event", seq__lte=last_seq)
        .order_by("-seq")
        .values_list("data", flat=True)[:EVENTS_TABLE_LIMIT]
    )
    evicted = [
        e
        for e in RunEvent.objects.filter(
            run=run, type__in=["evicted", "eviction_scheduled", "eviction_cancelled", "pod_deleted"], seq__lte=last_seq
        )
        .order_by("seq")
        .values_list("data", flat=True)[:EVENTS_TABLE_LIMIT]
        if e["type"] != "pod_deleted" or e.get("by") == "TaintManagerEviction"
    ]
    return Screen(
        run=run,
        frame=frame,
        pinned=pinned,
        can_control=can_control(run=run, actor=actor) and not pinned,
        reveal=reveal,
        groups=groups,
        view=view,
        previous=previous if reveal is None else {},
        frame_events=events,
        k8s_events=k8s,
        evicted=evicted,
        shown_seq=last_seq,
    )


def log_rows(*, run: Run, after_seq: int, upto_seq: int, limit: int = LOG_LIMIT) -> tuple[list[dict[str, Any]], int]:
    """Engine events after `after_seq` up to `upto_seq` (the newest `limit` of them), and how many
    were left out: what a (re)connecting viewer appends to its log to catch up."""
    rows = RunEvent.objects.filter(run=run, seq__gt=after_seq, seq__lte=upto_seq)
    total = rows.count()
    data = list(rows.order_by("-seq").values_list("data", flat=True)[:limit])
    data.reverse()
    return data, max(0, total - len(data))


def run_progress(*, run: Run) -> dict[str, Any]:
    """What the progress indicator shows: read from the DB, never from the worker's memory."""
    active = run.actions.filter(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]).order_by("index")
    running = active.filter(state=RunAction.STATE_RUNNING).first()
    last_failed = run.actions.filter(state=RunAction.STATE_FAILED).order_by("-index").first()
    last_done = (
        run.actions.exclude(state__in=[RunAction.STATE_PENDING, RunAction.STATE_RUNNING]).order_by("-index").first()
    )
    return {
        "queued": active.count(),
        "running": running,
        "playing": run.status == Run.STATUS_PLAYING or (running is not None and running.kind == RunAction.KIND_PLAY),
        "last_failed": last_failed if last_done is not None and last_failed == last_done else None,
        "actions_total": run.actions.count(),
    }


def score_plugins(*, run: Run, profile: str = "default-scheduler") -> list[str]:
    """The profile's Score plugins, as the engine reported them when the run started."""
    started = run.events.filter(type="run_started").values_list("data", flat=True).first()
    if not started:
        return []
    return list(((started.get("profiles") or {}).get(profile) or {}).get("score") or [])
