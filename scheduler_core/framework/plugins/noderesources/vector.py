"""LeastAllocated and BalancedAllocation for (cpu, memory) as NumPy expressions over the
snapshot's node columns (backend/cache/node_arrays.py): what `least_cpu_mem_batch` and
`balanced_cpu_mem_batch` compute node by node, with the same integer and float operations.

Integers: every operand stays below 2**61 (node values and pod requests are below 2**52, see
NodeArrays.exact), so int64 arithmetic is exact, and `//` is only applied to non-negative
numerators, where NumPy's floor division equals Go's truncating division. Floats: int64 -> float64
conversion of values below 2**53 is exact, and division, subtraction, abs, multiplication by
100.0 and the truncating cast are the same IEEE-754 operations as the per-node code, element by
element, so the scores are identical bit for bit (tests/engine/perf/test_fastpath_equivalence.py).

Each expression takes the arrays and the rows to compute (an index array or a slice: all rows
when the values are kept, backend/cache/kept_columns.py) and returns a NumPy array.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scheduler_core.backend.cache.node_arrays import SAFE, NodeArrays
from scheduler_core.framework.interface import MAX_NODE_SCORE


def fits_vector(*requests: int) -> bool:
    """Whether pod requests this large keep the vector arithmetic exact."""
    for r in requests:
        if not 0 <= r < SAFE:
            return False
    return True


def fit_suspect_mask(a: NodeArrays, idx: Any, cpu: int, mem: int, eph: int) -> Any:
    """Per row (of `idx`), whether NodeResourcesFit's quick test cannot pass it: too many pods,
    or too little cpu, memory or ephemeral storage left. Only these go through the per-node
    filter, which builds the reasons; every other node passes."""
    bad = a.pods[idx] >= a.allowed_pods[idx]
    if cpu > 0:
        bad |= cpu > a.alloc_cpu[idx] - a.req_cpu[idx]
    if mem > 0:
        bad |= mem > a.alloc_mem[idx] - a.req_mem[idx]
    if eph > 0:
        bad |= eph > a.alloc_eph[idx] - a.req_eph[idx]
    return bad


def fit_verdict_keys(a: NodeArrays, idx: Any, cpu: int, mem: int, eph: int) -> Any:
    """Per row (of `idx`), a small number saying which of NodeResourcesFit's tests fail there and
    which of those no node of its size could pass: too many pods (bit 0), cpu short (1) or more
    than the node has (2), memory (3, 4), ephemeral storage (5, 6). Two nodes with the same
    number get the same verdict (same reasons, same code) for a pod without scalar resources."""
    key = (a.pods[idx] >= a.allowed_pods[idx]).astype(np.int64)
    for shift, req, alloc, used in ((1, cpu, a.alloc_cpu, a.req_cpu), (3, mem, a.alloc_mem, a.req_mem),
                                    (5, eph, a.alloc_eph, a.req_eph)):
        if req > 0:
            cap = alloc[idx]
            key |= (req > cap - used[idx]).astype(np.int64) << shift
            key |= (req > cap).astype(np.int64) << (shift + 1)
    return key


def least_cpu_mem_vector(resources: Sequence[Any]) -> Callable[[NodeArrays, Any, int, int], Any]:
    """least_cpu_mem_batch over node rows (non-zero requests); `resources` are the strategy's
    two ResourceSpecs (cpu, memory), read for their weights."""
    wc, wm = resources[0].weight, resources[1].weight

    def vector(a: NodeArrays, idx: Any, pc: int, pm: int) -> Any:
        ac = a.alloc_cpu[idx]
        am = a.alloc_mem[idx]
        rc = a.nz_cpu[idx] + pc
        rm = a.nz_mem[idx] + pm
        hc = ac != 0
        hm = am != 0
        ns = np.where(hc & (rc <= ac), (np.maximum(ac - rc, 0) * MAX_NODE_SCORE) // np.where(hc, ac, 1) * wc, 0)
        ns += np.where(hm & (rm <= am), (np.maximum(am - rm, 0) * MAX_NODE_SCORE) // np.where(hm, am, 1) * wm, 0)
        ws = hc * wc + hm * wm
        return np.where(ws != 0, ns // np.where(ws != 0, ws, 1), 0)

    return vector


def balanced_cpu_mem_vector(a: NodeArrays, idx: Any, pc: int, pm: int) -> Any:
    """balanced_cpu_mem_batch over node rows (real requests)."""
    ac = a.alloc_cpu[idx]
    am = a.alloc_mem[idx]
    both = (ac != 0) & (am != 0)
    f0 = (a.req_cpu[idx] + pc).astype(np.float64) / np.where(both, ac, 1).astype(np.float64)
    f1 = (a.req_mem[idx] + pm).astype(np.float64) / np.where(both, am, 1).astype(np.float64)
    f0 = np.minimum(f0, 1.0)
    f1 = np.minimum(f1, 1.0)
    scores = ((1 - np.abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE)).astype(np.int64)
    return np.where(both, scores, int(float(MAX_NODE_SCORE)))
