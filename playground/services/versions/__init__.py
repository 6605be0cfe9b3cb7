"""Comparing Kubernetes versions: the same scenario and seed, run headless under each modelled
kube-scheduler release, and the pod-by-pod differences with the gate that caused each.

- `headless`: one run to the end, and what it says about each pod;
- `attribution`: which feature gate (scheduler_core.featuregate.features) explains a difference;
- `compare`: the comparison the "compare versions" page shows (size cap, cache).
"""

from playground.services.versions.compare import (
    MAX_NODES,
    MAX_PODS,
    CompareError,
    Comparison,
    compare_gates,
    compare_versions,
)

__all__ = ["MAX_NODES", "MAX_PODS", "CompareError", "Comparison", "compare_gates", "compare_versions"]
