"""setNodeCondition: the node's kubelet reports Ready=True/False, or stops posting (Unknown);
the node lifecycle controller takes it from there."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec, ParseContext

STATUSES = ("True", "False", "Unknown")


class SetNodeCondition(NodeActionSpec):
    name = "setNodeCondition"
    fields = ("node", "type", "status")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        params = self.parse_node(ctx, m)
        ctype = ctx.string(m, "type") or "Ready"
        if ctype != "Ready":
            raise ctx.err("type", f'Unsupported value: "{ctype}": supported values: "Ready"')
        raw = m.get("status")
        # An unquoted YAML True/False is a boolean: read it as the status it spells.
        status = ("True" if raw else "False") if isinstance(raw, bool) else ctx.r.string(raw, f"{ctx.path}.status")
        if status not in STATUSES:
            raise ctx.err("status", f'Unsupported value: "{status}": supported values: '
                                    + ", ".join(f'"{s}"' for s in STATUSES))
        params["status"] = status
        return params

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.set_node_condition(params["node"], params["status"])


SPEC = SetNodeCondition()
