"""deleteNode: a client deletes a Node (its pods stay bound to the name, as upstream's do until
the garbage collector or the taint manager acts)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.names import Ref
from scheduler_core.actions.spec import NodeActionSpec


class DeleteNode(NodeActionSpec):
    name = "deleteNode"
    fields = ("node",)

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Node", params["node"], "node", "deletes"),)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.delete_node(params["node"])


SPEC = DeleteNode()
