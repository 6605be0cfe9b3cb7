"""cordon: `kubectl cordon`, the Node's spec.unschedulable set to true."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec


class Cordon(NodeActionSpec):
    name = "cordon"
    fields = ("node",)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.set_unschedulable(params["node"], True)


SPEC = Cordon()
