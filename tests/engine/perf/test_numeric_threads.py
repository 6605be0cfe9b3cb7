"""Importing the engine keeps NumPy's BLAS pool to the calling thread (util/numeric_threads.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from scheduler_core.util.numeric_threads import VARIABLES

THREADS = ("import numpy, re; print(re.search(r'Threads:\\s+(\\d+)', open('/proc/self/status').read()).group(1))")


def _threads(prelude: str, env: dict[str, str]) -> int:
    out = subprocess.run([sys.executable, "-c", prelude + THREADS], env=env, capture_output=True, text=True,
                         check=True)
    return int(out.stdout.strip())


def test_the_engine_process_runs_numpy_without_worker_threads():
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    assert _threads("import scheduler_core.simulation; ", env) == 1
    # A value the user set wins (here: what NumPy does on its own on a machine of several cores).
    if (os.cpu_count() or 1) > 1:
        assert _threads("import scheduler_core.simulation; ", {**env, "OPENBLAS_NUM_THREADS": "2"}) == 2
