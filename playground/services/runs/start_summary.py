"""A big run start's queue entries stored as one summary event, not one row per pod.

The engine reports its start as `run_started` and then one `queue_move` (from "none") per pod
that enters the scheduling queue: 150,001 events at 5,000 nodes x 150,000 pods, all at the
same virtual time, each saying only "this pod was added to activeQ" (or to the gated pods).
Stored as rows they made the start's transaction, frame 0's event list (read by the run page's
first load), the log's counts and the metrics page's replay cost the cluster's size, and none
of them tells a learner more than the counts do.

So when a start emits more than `START_EVENTS_VERBATIM` events, the web stores those entries
as one `start_summary` event instead (scheduler_core/events/recorder.py documents its fields):
how many pods went to which queue for which reason, the seq range they had, and the first few
pod names of each group. The engine's stream is unchanged (`trace` still prints every event);
only what the web keeps of frame 0 is shorter. Every other start event (run_started, a claim or
volume the controllers created, a Kubernetes Event) is stored as it was, with its own seq.
Small starts (every lesson, every gallery scenario) are stored event by event, as before.

Readers that count the start's entries read the summary: the metrics replay (RunMetrics's
`start_summary` handler), the log's line (`run_tags.event_summary`) and the story of frame 0.
"""

from __future__ import annotations

from typing import Any

START_EVENTS_VERBATIM = 2000  # a start with at most this many events is stored event by event
SUMMARY_TYPE = "start_summary"
SAMPLE_PODS = 5  # pod names kept per group, so the log line can name a few


def is_start_entry(event: dict[str, Any]) -> bool:
    """A pod entering the scheduling queue at the start (the events the summary replaces)."""
    return event.get("type") == "queue_move" and event.get("from") == "none"


def summarize_start(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The start's events as the web stores them: unchanged when there are at most
    START_EVENTS_VERBATIM of them (or no queue entries), else every event but the queue entries,
    plus one `start_summary` event at the seq of the last entry (so seqs stay unique, ascending,
    and the frame's last_seq still names the start's last event)."""
    if len(events) <= START_EVENTS_VERBATIM:
        return events
    entries = [e for e in events if is_start_entry(e)]
    if not entries:
        return events
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for e in entries:
        key = (str(e.get("to")), str(e.get("reason") or ""))
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"to": key[0], "reason": key[1], "count": 0, "pods": []}
        group["count"] += 1
        if len(group["pods"]) < SAMPLE_PODS:
            group["pods"].append(e.get("pod"))
    times = [float(e.get("time") or 0.0) for e in entries]
    summary = {
        "seq": entries[-1]["seq"],
        "time": times[-1],
        "type": SUMMARY_TYPE,
        "count": len(entries),
        "first_seq": entries[0]["seq"],
        "last_seq": entries[-1]["seq"],
        "from_time": min(times),
        "moves": sorted(groups.values(), key=lambda g: (-g["count"], g["to"], g["reason"])),
    }
    kept = [e for e in events if not is_start_entry(e)]
    kept.append(summary)
    kept.sort(key=lambda e: e["seq"])
    return kept

