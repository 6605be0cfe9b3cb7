"""`simulate --metrics FILE`: the exposition parses, matches the run's trace, and stdout is unchanged."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from scheduler_core.__main__ import main

CASE = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "cases" / "v19-preemption-basic.yaml"


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_simulate_metrics_file(tmp_path: Path) -> None:
    target = tmp_path / "run.prom"
    plain = _main("simulate", str(CASE))
    with_metrics = _main("simulate", str(CASE), "--metrics", str(target))
    assert with_metrics == plain  # stdout and stderr unchanged
    families = {f.name: f for f in text_string_to_metric_families(target.read_text())}
    assert families["scheduler_schedule_attempts"].type == "counter"
    values = {(s.name, tuple(sorted(s.labels.items()))): s.value
              for f in families.values() for s in f.samples}
    # The trace's own events say the same.
    code, trace, _ = _main("trace", str(CASE))
    events = [json.loads(line) for line in trace.splitlines()]
    scheduled = sum(1 for e in events if e["type"] == "k8s_event" and e["reason"] == "Scheduled")
    assert values[("scheduler_schedule_attempts_total",
                   (("profile", "default-scheduler"), ("result", "scheduled")))] == scheduled
    assert values[("scheduler_preemption_attempts_total", ())] == 1
    assert values[("scheduler_pending_pods", (("queue", "active"),))] == 0
    assert "playground_plugin_execution_wall_seconds" in families


def test_trace_with_metrics_keeps_the_trace(tmp_path: Path) -> None:
    plain = _main("trace", str(CASE))
    assert _main("trace", str(CASE), "--metrics", str(tmp_path / "m.txt")) == plain
    assert "scheduler_pending_pods" in (tmp_path / "m.txt").read_text()


def test_unwritable_metrics_file_is_refused_before_the_run(tmp_path: Path) -> None:
    code, out, err = _main("simulate", str(CASE), "--metrics", str(tmp_path / "missing" / "m.txt"))
    assert code == 2 and out == ""
    assert err.startswith("error: --metrics: ") and "No such file or directory" in err
