"""`simulate` and `trace` take the DeschedulerPolicy (and its interval) from the scenario file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LESSON = ROOT / "playground" / "gallery" / "descheduler-rebalance.yaml"


def _cli(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "scheduler_core", *args, str(LESSON)], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def test_simulate_and_trace_run_the_policy_on_its_interval():
    result = json.loads(_cli("simulate", "--seed", "0"))
    assert result["settled"]
    deleted = {p["name"]: p["deletedBy"] for p in result["pods"] if p["status"] == "Deleted"}
    assert deleted == {"web-1": "Evicted", "web-4": "Evicted"}
    events = [json.loads(line) for line in _cli("trace", "--seed", "0").splitlines()]
    evicted = [(e["time"], e["pod"], e["trigger"]) for e in events if e["type"] == "descheduler_evicted"]
    assert evicted == [(60.0, "default/web-1", "interval"), (60.0, "default/web-4", "interval")]
