"""deletePod: a client deletes a Pod ("namespace/name", or "name" in the default namespace)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.names import Ref, pod_key
from scheduler_core.actions.spec import ActionSpec, ParseContext


def parse_pod_ref(ctx: ParseContext, m: dict[str, Any]) -> str:
    """`ns/name` or `name` (namespace default) -> `ns/name`."""
    ref = ctx.string(m, "pod", required="")
    ns, _, name = ref.rpartition("/")
    return f"{ns or 'default'}/{name}"


class DeletePod(ActionSpec):
    name = "deletePod"
    fields = ("pod",)

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {"pod": parse_pod_ref(ctx, m)}

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Pod", pod_key(params["pod"]), "pod", "deletes"),)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.delete_pod(pod_key(params["pod"]), by="User")


SPEC = DeletePod()
