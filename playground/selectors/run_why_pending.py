"""When each pending pod of a run was last tried: its last `cycle_started` event, read newest first.

The rows are read backwards by the (run, type, seq) index and stop as soon as every pod asked
about is found, or after MAX_ROWS rows (a pod last tried before those is reported as None:
"earlier"), so a 150,000-pod run's page does not decode every cycle it ever had.
"""

from __future__ import annotations

from playground.models import Run, RunEvent

MAX_ROWS = 200_000
CHUNK = 5_000


def last_tried_cycles(*, run: Run, pods: set[str], upto_seq: int | None = None) -> dict[str, int]:
    """Pod key -> the cycle of its last scheduling attempt, for the pods of `pods` found."""
    found: dict[str, int] = {}
    if not pods:
        return found
    rows = RunEvent.objects.filter(run=run, type="cycle_started")
    if upto_seq is not None:
        rows = rows.filter(seq__lte=upto_seq)
    rows = rows.order_by("-seq")
    read = 0
    while read < MAX_ROWS:
        chunk = list(rows[read:read + CHUNK].values_list("data", flat=True))
        for data in chunk:
            pod = data.get("pod")
            if pod in pods and pod not in found:
                found[pod] = int(data.get("cycle") or 0)
        read += len(chunk)
        if len(chunk) < CHUNK or len(found) == len(pods):
            break
    return found
