"""The bench scripts quiet the "could not queue" warning a start logs when no worker listens
(their Redis URL points nowhere on purpose); they name the logger by the module that logs it, so
when that module moves, a script naming the old one would print a traceback per start again."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _quieted_loggers() -> list[tuple[str, str]]:
    """(script, logger name) for every `logging.getLogger("playground...")` call in bench/."""
    found = []
    for script in sorted(BENCH.glob("*.py")):
        for call in ast.walk(ast.parse(script.read_text(), str(script))):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "getLogger" and call.args
                    and isinstance(call.args[0], ast.Constant) and str(call.args[0].value).startswith("playground")):
                found.append((script.name, str(call.args[0].value)))
    return found


def test_each_quieted_logger_is_the_module_that_logs_could_not_queue() -> None:
    quieted = _quieted_loggers()
    assert {script for script, _ in quieted} >= {"envelope_phases.py", "timeline_start.py", "web_engine_paths.py"}
    for script, name in quieted:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin, f"bench/{script}: no module {name}"
        source = Path(spec.origin).read_text()
        assert "getLogger(__name__)" in source and "could not queue" in source, (
            f"bench/{script}: {name} does not log the 'could not queue' warning")
