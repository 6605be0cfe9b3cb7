"""Upstream's scheduler metrics of one run, recomputed from its event stream.

The engine records nothing for metrics: every number here follows from the typed events
(scheduler_core/events/recorder.py) the run emits, at the places upstream records its metrics:

- `queue_move` events are the queue's adds and pops: `scheduler_pending_pods{queue}` and
  `scheduler_queue_incoming_pods_total{queue,event}` (upstream's event label is the move's reason;
  a pop straight from backoffQ counts as an incoming `active` pod, PopFromBackoffQ, as upstream's
  activeQ does);
- `cycle_started` opens a scheduling attempt; `bound` ends it `scheduled` (upstream's
  PodScheduled after the binding cycle); a `FailedScheduling` Kubernetes event ends it
  `unschedulable` when a plugin rejected the pod in it (a PreFilter result, a Filter verdict of
  the failed walk, a Reserve/Permit/PreBind status with code Unschedulable,
  UnschedulableAndUnresolvable or Pending) and `error` otherwise. The attempt's virtual duration
  goes to `scheduler_scheduling_attempt_duration_seconds`; a scheduled pod's attempts to
  `scheduler_pod_scheduling_attempts` and the time since it first entered activeQ (upstream's
  InitialAttemptTimestamp) to `scheduler_pod_scheduling_sli_duration_seconds{attempts}`;
- the rejecting plugins of a failed attempt raise `scheduler_unschedulable_pods{plugin,profile}`
  when the pod goes back to the queue, and the pod's next pop lowers them (upstream does the same,
  and, like upstream, a pod deleted while it waits keeps its count);
- `prefilter` results, `filter_verdicts` rows and `scores` columns are the plugin calls
  `scheduler_plugin_evaluation_total` counts (PreFilter unless Skip; Filter per evaluated node
  unless skipped or not reached; Score per scored node). The stream does not report PreScore
  calls, so that extension point is absent;
- a DefaultPreemption `postfilter` event is one `scheduler_preemption_attempts_total`; the
  chosen candidate of a `preemption` event observes its victims in `scheduler_preemption_victims`.

Only the events the metrics need are read (METRIC_EVENT_TYPES), so the web can select just
those rows of a long run.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.metrics import definitions as d
from scheduler_core.metrics.histogram import Histogram

QUEUE_LABELS = {"activeQ": "active", "backoffQ": "backoff", "unschedulable": "unschedulable", "gated": "gated"}
REJECTED_CODES = frozenset({"Unschedulable", "UnschedulableAndUnresolvable", "Pending"})
NOT_RUN_CODES = frozenset({"Skip", "NotEvaluated"})
POP_REASONS = frozenset({"Pop", "PopFromBackoffQ"})
FAILURE_REASON = "ScheduleAttemptFailure"
PREEMPTION_PLUGIN = "DefaultPreemption"
SLI_ATTEMPTS_CAP = 15  # upstream's getAttemptsLabel: "15+" from 15 attempts on

METRIC_EVENT_TYPES: frozenset[str] = frozenset({
    "run_started", "queue_move", "start_summary", "cycle_started", "prefilter", "filter_verdicts", "scores",
    "extension_point", "postfilter", "preemption", "bound", "k8s_event", "pod_deleted",
})


@dataclass
class _Attempt:
    pod: str
    profile: str
    start: float
    attempts: int
    rejectors: set[str] = field(default_factory=set)


class RunMetrics:
    """The metrics of one run so far; `feed` it the run's events in order."""

    def __init__(self) -> None:
        self.attempts_total: dict[tuple[str, str], int] = {}  # (result, profile)
        self.attempt_duration = Histogram(d.SCHEDULING_ATTEMPT_DURATION.buckets)
        self.pending: dict[str, int] = {q: 0 for q in QUEUE_LABELS.values()}
        self.incoming: dict[tuple[str, str], int] = {}  # (queue, event)
        self.pod_attempts = Histogram(d.POD_SCHEDULING_ATTEMPTS.buckets)
        self.sli_duration = Histogram(d.POD_SCHEDULING_SLI_DURATION.buckets)
        self.preemption_attempts = 0
        self.preemption_victims = Histogram(d.PREEMPTION_VICTIMS.buckets)
        self.unschedulable: dict[tuple[str, str], int] = {}  # (plugin, profile)
        self.plugin_evaluations: dict[tuple[str, str, str], int] = {}  # (plugin, point, profile)
        self.events_seen = 0
        self.last_time = 0.0
        self.last_cycle = 0
        # Where each pod is, for the gauges and the attempt in flight.
        self._queue_of: dict[str, str] = {}
        self._first_active: dict[str, float] = {}
        self._attempt: dict[str, _Attempt] = {}
        self._rejected_by: dict[str, tuple[str, set[str]]] = {}  # pod -> (profile, plugins counted)
        # A start stored as a summary (see `_start_summary`): when its pods entered activeQ, and
        # the pods seen in a queue move since (the first move of any other one is from the start).
        self._start_active: float | None = None
        self._seen_since_start: set[str] = set()

    def copy(self) -> RunMetrics:
        return copy.deepcopy(self)

    # ---- feeding ------------------------------------------------------------------------------
    def feed_all(self, events: Any) -> RunMetrics:
        for ev in events:
            self.feed(ev)
        return self

    def feed(self, ev: dict[str, Any]) -> None:
        handler = _HANDLERS.get(ev.get("type", ""))
        self.events_seen += 1
        self.last_time = ev.get("time", self.last_time)
        if handler is not None:
            handler(self, ev)

    def _queue_move(self, ev: dict[str, Any]) -> None:
        pod, src, dst, reason = ev["pod"], ev["from"], ev["to"], ev.get("reason") or ""
        if self._start_active is not None and pod not in self._seen_since_start:
            self._seen_since_start.add(pod)
            if src == "activeQ":  # its entry into activeQ is in the start's summary
                self._first_active.setdefault(pod, self._start_active)
        if src in QUEUE_LABELS:
            self.pending[QUEUE_LABELS[src]] -= 1
        if dst in QUEUE_LABELS:
            q = QUEUE_LABELS[dst]
            self.pending[q] += 1
            self._inc(self.incoming, (q, reason))
            self._queue_of[pod] = dst
            if dst == "activeQ":
                self._first_active.setdefault(pod, ev["time"])
        else:
            self._queue_of.pop(pod, None)
            if reason == "PopFromBackoffQ":
                self._inc(self.incoming, ("active", reason))
                self._first_active.setdefault(pod, ev["time"])
        if reason in POP_REASONS and dst == "none":
            counted = self._rejected_by.pop(pod, None)
            if counted is not None:
                profile, plugins = counted
                for pl in plugins:
                    self.unschedulable[(pl, profile)] -= 1
        elif reason == FAILURE_REASON:
            att = self._attempt.get(pod)
            if att is not None and att.rejectors:
                for pl in att.rejectors:
                    self._inc(self.unschedulable, (pl, att.profile))
                self._rejected_by[pod] = (att.profile, set(att.rejectors))

    def _start_summary(self, ev: dict[str, Any]) -> None:
        """The pods that entered the queue at a big start, as the web stores them: one event with
        the counts per queue and reason (fields: count, moves [{to, reason, count, pods}], time;
        playground/services/runs/start_summary.py), not one queue_move per pod. The gauges and
        the incoming counters take the counts; a pod's first entry into activeQ (the SLI's
        start) is the summary's time, applied when the pod's first move out of activeQ is seen."""
        self.events_seen += max(0, int(ev.get("count") or 0) - 1)  # feed counted the summary once
        for group in ev.get("moves") or ():
            queue = QUEUE_LABELS.get(group.get("to", ""))
            if queue is None:
                continue
            count = int(group.get("count") or 0)
            self.pending[queue] += count
            self._inc(self.incoming, (queue, group.get("reason") or ""), count)
            if queue == "active":
                self._start_active = float(ev.get("time") or 0.0)

    def _cycle_started(self, ev: dict[str, Any]) -> None:
        self.last_cycle = ev["cycle"]
        self._attempt[ev["pod"]] = _Attempt(ev["pod"], ev["profile"], ev["time"], ev.get("attempts", 1))

    def _prefilter(self, ev: dict[str, Any]) -> None:
        att = self._attempt.get(ev["pod"])
        profile = att.profile if att else ""
        for r in ev.get("results", ()):
            code = r.get("code", "Success")
            if code not in NOT_RUN_CODES:
                self._inc(self.plugin_evaluations, (r["plugin"], "PreFilter", profile))
            if code in REJECTED_CODES and att is not None:
                att.rejectors.add(r["plugin"])

    def _filter_verdicts(self, ev: dict[str, Any]) -> None:
        att = self._attempt.get(ev["pod"])
        profile = att.profile if att else ""
        rows = ev.get("verdicts", [])
        per_row = [0] * len(rows)
        for i in ev.get("outcome", ()):
            per_row[i] += 1
        failed_walk = ev.get("num_feasible", 0) == 0
        for row, n in zip(rows, per_row, strict=True):
            if n == 0 or "_" in row:
                continue
            for plugin, verdict in row.items():
                code = verdict.get("code", "Success")
                if code in NOT_RUN_CODES:
                    continue
                self._inc(self.plugin_evaluations, (plugin, "Filter", profile), n)
                if failed_walk and code in REJECTED_CODES and att is not None:
                    att.rejectors.add(plugin)

    def _scores(self, ev: dict[str, Any]) -> None:
        att = self._attempt.get(ev["pod"])
        profile = att.profile if att else ""
        n = len(ev.get("nodes", ()))
        extenders = set(ev.get("extenders") or ())
        for plugin in ev.get("plugins", ()):
            if plugin not in extenders:
                self._inc(self.plugin_evaluations, (plugin, "Score", profile), n)

    def _extension_point(self, ev: dict[str, Any]) -> None:
        att = self._attempt.get(ev["pod"])
        if att is not None and ev.get("code") in REJECTED_CODES and ev.get("plugin"):
            att.rejectors.add(ev["plugin"])

    def _postfilter(self, ev: dict[str, Any]) -> None:
        if ev.get("plugin") == PREEMPTION_PLUGIN:
            self.preemption_attempts += 1

    def _preemption(self, ev: dict[str, Any]) -> None:
        chosen = ev.get("chosen")
        if not chosen:
            return
        for cand in ev.get("candidates", ()):
            if cand.get("node") == chosen:
                self.preemption_victims.observe((), float(len(cand.get("victims", ()))))
                return

    def _bound(self, ev: dict[str, Any]) -> None:
        att = self._attempt.pop(ev["pod"], None)
        if att is None:
            return
        self._finish(att, "scheduled", ev["time"])
        self.pod_attempts.observe((), float(att.attempts))
        first = self._first_active.pop(att.pod, None)
        if first is not None:
            label = f"{SLI_ATTEMPTS_CAP}+" if att.attempts >= SLI_ATTEMPTS_CAP else str(att.attempts)
            self.sli_duration.observe((label,), ev["time"] - first)

    def _k8s_event(self, ev: dict[str, Any]) -> None:
        if ev.get("reason") != "FailedScheduling" or ev.get("message", "").startswith("skip schedule"):
            return
        att = self._attempt.pop(ev.get("object", ""), None)
        if att is not None:
            self._finish(att, "unschedulable" if att.rejectors else "error", ev["time"])

    def _pod_deleted(self, ev: dict[str, Any]) -> None:
        self._first_active.pop(ev["pod"], None)
        self._attempt.pop(ev["pod"], None)

    def _finish(self, att: _Attempt, result: str, now: float) -> None:
        self._inc(self.attempts_total, (result, att.profile))
        self.attempt_duration.observe((result, att.profile), now - att.start)

    @staticmethod
    def _inc(table: dict[Any, int], key: Any, n: int = 1) -> None:
        table[key] = table.get(key, 0) + n

    # ---- reading ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """The few numbers a timeline point keeps (JSON-able, small)."""
        by_result: dict[str, int] = {}
        for (result, _profile), n in self.attempts_total.items():
            by_result[result] = by_result.get(result, 0) + n
        return {"time": self.last_time, "cycle": self.last_cycle, "pending": dict(self.pending),
                "attempts": by_result, "preemption_attempts": self.preemption_attempts}


_HANDLERS = {
    "queue_move": RunMetrics._queue_move,
    "start_summary": RunMetrics._start_summary,
    "cycle_started": RunMetrics._cycle_started,
    "prefilter": RunMetrics._prefilter,
    "filter_verdicts": RunMetrics._filter_verdicts,
    "scores": RunMetrics._scores,
    "extension_point": RunMetrics._extension_point,
    "postfilter": RunMetrics._postfilter,
    "preemption": RunMetrics._preemption,
    "bound": RunMetrics._bound,
    "k8s_event": RunMetrics._k8s_event,
    "pod_deleted": RunMetrics._pod_deleted,
}
