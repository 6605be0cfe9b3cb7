"""The visible upstream conformance cases, through the real CLI and the shared checker.

`../shared/conformance/check.py` runs `python -m scheduler_core simulate CASE.yaml --seed N` for
every case and compares placements, FailedScheduling messages and eviction times with what the
real kube-scheduler v1.35.4 produced. Each case is its own test so a regression names the case.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT.parent / "shared" / "conformance" / "check.py"
CASES = sorted(p.stem for p in (CHECK.parent / "cases").glob("*.yaml")) if CHECK.exists() else []

pytestmark = pytest.mark.skipif(not CHECK.exists(), reason="../shared/conformance is not beside the project")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [0, 7])
def test_conformance_case(case: str, seed: int) -> None:
    proc = subprocess.run(
        [sys.executable, str(CHECK), "--cmd", f"{sys.executable} -m scheduler_core", "-k", case,
         "--seed", str(seed), "--timeout", "60", "-v"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_simulate_is_deterministic() -> None:
    case = CHECK.parent / "cases" / "v22-preemption-several.yaml"
    outs = [
        subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(case), "--seed", "3"],
                       cwd=ROOT, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert outs[0] == outs[1]
