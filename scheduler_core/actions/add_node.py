"""addNode: a Node registers (its kubelet, or a client creating the object)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.manifest import parse_manifest
from scheduler_core.actions.names import Ref
from scheduler_core.actions.spec import ActionSpec, ParseContext


class AddNode(ActionSpec):
    name = "addNode"
    fields = ("node",)

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {"node": parse_manifest(ctx, m, "node")}

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Node", params["node"].name, "node", "creates"),)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.create_node(params["node"])


SPEC = AddNode()
