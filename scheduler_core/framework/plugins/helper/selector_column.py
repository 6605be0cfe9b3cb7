"""Which nodes a nodeSelector admits, as a column over the snapshot's node arrays.

A pod with a nodeSelector (GPU or high-memory pools) is tested against every node: at tens of
thousands of nodes NodeAffinity's Filter and PodTopologySpread's PreScore would each compare
every node's labels for every such pod. A selector's answer for a node changes only with the
node's labels, and the pods of a workload share their selector, so the answer for every node
is kept with the node arrays (kept_columns.take_column: computed once per selector, then only
for the rows rewritten since) and a cycle takes its rows with one gather.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.backend.cache.kept_columns import take_column
from scheduler_core.backend.cache.node_arrays import NodeArrays
from scheduler_core.framework.types import NodeInfo


def node_selector_column(arrays: NodeArrays, pairs: tuple[tuple[str, str], ...], idx: Any) -> Any | None:
    """A bool array: whether each node at rows `idx` carries every (key, value) of `pairs`
    (RequiredNodeAffinity's nodeSelector test). None when the arrays do not know their nodes."""
    import numpy as np

    def matches(nodes: list[NodeInfo]) -> list[bool]:
        return [all(ni.node.labels.get(k) == v for k, v in pairs) for ni in nodes]

    return take_column(arrays, ("nodeSelector", pairs), idx,
                       lambda: np.array(matches(arrays.nodes), dtype=bool), matches)
