"""removeTaint: `kubectl taint nodes <node> key[:Effect]-` (without an effect, every taint of
the key goes)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec, ParseContext

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


class RemoveTaint(NodeActionSpec):
    name = "removeTaint"
    fields = ("node", "key", "effect")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        params = self.parse_node(ctx, m)
        params["key"] = ctx.string(m, "key", required="")
        effect = ctx.string(m, "effect")
        if effect and effect not in EFFECTS:
            raise ctx.err("effect", f'Unsupported value: "{effect}": supported values: '
                                    + ", ".join(f'"{e}"' for e in EFFECTS))
        params["effect"] = effect or None
        return params

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.remove_taint(params["node"], params["key"], params.get("effect", ""))


SPEC = RemoveTaint()
