"""setNodeLabels: `kubectl label nodes <node> k=v k2-` (a null value removes the label)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import NodeActionSpec, ParseContext
from scheduler_core.api.validation import label_value_error, qualified_name_error


class SetNodeLabels(NodeActionSpec):
    name = "setNodeLabels"
    fields = ("node", "labels")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        params = self.parse_node(ctx, m)
        r, p = ctx.r, ctx.path
        lm = r.mapping(m.get("labels"), f"{p}.labels", required=True)
        labels: dict[str, str | None] = {}
        for k, v in lm.items():
            if not isinstance(k, str):
                raise r.err(f"{p}.labels", f"keys must be strings, got {k!r}")
            err = qualified_name_error(k)
            if err:
                raise r.err(f"{p}.labels", f'Invalid value: "{k}": {err}')
            if v is not None:
                v = r.string(v, f"{p}.labels.{k}")
                err = label_value_error(v)
                if err:
                    raise r.err(f"{p}.labels.{k}", f'Invalid value: "{v}": {err}')
            labels[k] = v
        params["labels"] = labels
        return params

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.set_node_labels(params["node"], params["labels"])


SPEC = SetNodeLabels()
