"""One thread for the numeric libraries under the engine.

The engine's vector paths (backend/cache/node_arrays.py and the scorers that read it) call
NumPy on a few thousand numbers at a time. OpenBLAS and OpenMP start a pool of worker threads
on import and let them spin between calls: at 5,000 nodes one of them burned about half a
core in the engine process without making anything faster (with one thread the wall time is
the same and the CPU time equals it). On a shared 2-core server that half core belongs to
another run, so every process that imports the engine (the command line, the Celery worker,
the benchmarks) asks for one thread.

The pools read their size from the environment when NumPy is first imported, which the engine
does lazily, so setting the variables when `scheduler_core` is imported is early enough. A
value the user set is kept, and nothing is changed once NumPy is loaded (then the pools are
sized already).
"""

from __future__ import annotations

import os
import sys

VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def pin_numeric_threads() -> bool:
    """Ask the numeric libraries for one thread each; False when NumPy was already imported."""
    if "numpy" in sys.modules:
        return False
    for name in VARIABLES:
        os.environ.setdefault(name, "1")
    return True
