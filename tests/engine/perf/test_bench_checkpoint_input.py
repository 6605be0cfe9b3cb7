"""bench/checkpoint.py measures a scenario file (`--input`) and a checkpoint late in a run (`--to-end`),
and still checks that the restored engine steps as the original did.

Why: the late-run figures in bench/RESULTS.md come from these two options; a script that stopped
reading the file, or compared nothing, would give figures of another engine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _scenario() -> str:
    nodes = [f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{capacity: {{cpu: '4', pods: '110'}}}}\n"
             for i in range(3)]
    pods = [f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: default}}\nspec:\n"
            "  containers: [{name: c, image: pause, resources: {requests: {cpu: '1'}}}]\n" for i in range(14)]
    return "---\n".join(nodes + pods)


def _bench(*args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "checkpoint.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_input_file_is_measured_and_the_restore_compared(tmp_path: Path) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(_scenario())
    out = _bench("--input", str(path), "--steps", "4", "--after", "6")
    assert out.splitlines()[0].startswith(str(path))
    assert "restored steps identically: events True, result True" in out
    assert "(0 events)" not in out  # the six compared steps scheduled pods


def test_to_end_checkpoints_a_settled_run(tmp_path: Path) -> None:
    path = tmp_path / "small.yaml"
    path.write_text(_scenario())
    out = _bench("--input", str(path), "--to-end", "--after", "2")
    assert "  14 cycles, 12 pods running" in out
    assert "restored steps identically: events True, result True" in out
