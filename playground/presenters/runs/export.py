"""A run's results to take away (JSON, CSV): where each pod is, why each pending pod is pending
(the FailedScheduling messages), and the Kubernetes events, at the step the link names (the
head by default). Read from the stored frame and events; nothing is re-simulated."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from playground.models import RunEvent

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

POD_COLUMNS = ["namespace", "name", "status", "node", "nominatedNode", "priority", "owner", "deletedBy", "message"]
EVENT_COLUMNS = ["time", "type", "reason", "namespace", "object", "message"]


def _split(key: str) -> tuple[str, str]:
    namespace, _, name = str(key).rpartition("/")
    return namespace, name


def pod_rows(screen: Screen) -> list[dict[str, Any]]:
    rows = []
    for pod in screen.view.get("pods", []):
        namespace, name = _split(pod["key"])
        rows.append({
            "namespace": namespace, "name": name, "status": pod.get("status"), "node": pod.get("node") or "",
            "nominatedNode": pod.get("nominatedNodeName") or "", "priority": pod.get("priority"),
            "owner": pod.get("owner") or "", "deletedBy": pod.get("deletedBy") or "",
            "message": pod.get("message") or "",
        })
    return rows


def event_rows(screen: Screen) -> Iterator[dict[str, Any]]:
    """Every Kubernetes event up to the screen's step, oldest first."""
    events = (RunEvent.objects.filter(run=screen.run, type="k8s_event", seq__lte=screen.shown_seq)
              .order_by("seq").values_list("data", flat=True).iterator(chunk_size=2000))
    for e in events:
        namespace, name = _split(e.get("object", ""))
        yield {"time": e.get("time"), "type": e.get("eventType"), "reason": e.get("reason"),
               "namespace": namespace, "object": f"pod/{name}", "message": e.get("message")}


def results(screen: Screen) -> dict[str, Any]:
    """The JSON document: the run, the step, pods, FailedScheduling messages and events."""
    events = list(event_rows(screen))
    return {
        "run": screen.run.share_token,
        "scenario": screen.run.scenario_name,
        "seed": screen.run.seed,
        "step": screen.step,
        "cycle": screen.cycle,
        "clock": screen.clock,
        "pods": pod_rows(screen),
        "failedScheduling": [e for e in events if e["reason"] == "FailedScheduling"],
        "events": events,
    }


def csv_text(rows: Any, columns: list[str]) -> Iterator[str]:
    """CSV lines (header first), streamed; a cell that a spreadsheet would read as a formula is
    prefixed with a quote, so opening the file runs nothing a scenario's author typed."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _safe(row.get(k)) for k in columns})
        if buffer.tell() > 64 * 1024:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _safe(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
