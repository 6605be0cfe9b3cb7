"""addTaint: `kubectl taint nodes <node> key=value:Effect` (a taint of the same key and effect
is replaced)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec, ParseContext


class AddTaint(NodeActionSpec):
    name = "addTaint"
    fields = ("node", "taint")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        from scheduler_core.loader.nodes import parse_taint

        params = self.parse_node(ctx, m)
        params["taint"] = parse_taint(ctx.r, m.get("taint"), f"{ctx.path}.taint")
        return params

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.add_taint(params["node"], params["taint"])


SPEC = AddTaint()
