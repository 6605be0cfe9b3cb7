"""The recorded upstream DRA cases (../shared/conformance/storage-dra/d*), through the real CLI
and the shared checker, at seeds 0 and 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CHECK = ROOT.parent / "shared" / "conformance" / "check.py"
CASES_DIR = CHECK.parent / "storage-dra"
CASES = sorted(p.stem for p in CASES_DIR.glob("d*.yaml")) if CASES_DIR.exists() else []

pytestmark = pytest.mark.skipif(not CASES_DIR.exists(), reason="../shared/conformance/storage-dra is not beside the project")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_dra_conformance_case(case: str, seed: int) -> None:
    proc = subprocess.run(
        [sys.executable, str(CHECK), "--cmd", f"{sys.executable} -m scheduler_core", "--cases", str(CASES_DIR),
         "-k", case, "--seed", str(seed), "--timeout", "60", "-v"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
