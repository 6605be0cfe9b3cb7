"""uncordon: `kubectl uncordon`, the Node's spec.unschedulable set back to false."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec


class Uncordon(NodeActionSpec):
    name = "uncordon"
    fields = ("node",)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.set_unschedulable(params["node"], False)


SPEC = Uncordon()
