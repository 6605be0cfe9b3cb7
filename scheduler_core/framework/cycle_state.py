"""Per-cycle scratch space plugins share between extension points (upstream CycleState).

PreFilter computes something once per pod (e.g. the pod's total request, the topology counts);
Filter and Score read it back for every node. Preemption clones the state for its dry runs, so
every stored value that a PreFilterExtensions' AddPod/RemovePod mutates must offer `clone()`.
"""

from __future__ import annotations

from typing import Any


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "skip_pre_bind_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.skip_pre_bind_plugins: set[str] = set()

    def read(self, key: str) -> Any:
        """The stored value, or KeyError (upstream returns ErrNotFound)."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self._data.items():
            c._data[k] = v.clone() if hasattr(v, "clone") else v
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        c.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        return c
