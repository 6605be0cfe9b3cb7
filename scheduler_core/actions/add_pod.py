"""addPod: a client creates a Pod (bound already when it names spec.nodeName)."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.manifest import parse_manifest
from scheduler_core.actions.names import NameSet, Ref
from scheduler_core.actions.spec import ActionSpec, ParseContext


class AddPod(ActionSpec):
    name = "addPod"
    fields = ("pod",)

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        return {"pod": parse_manifest(ctx, m, "pod")}

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Pod", params["pod"].key, "pod", "creates"),)

    def replay_warning(self, params: dict[str, Any], names: NameSet) -> tuple[str, str] | None:
        node = params["pod"].node_name
        if node and not names.exists("Node", node):
            # The API server accepts a pod bound to any node name (docs/loader-references.md).
            return ("pod.spec.nodeName",
                    f'node "{node}" does not exist at t={{time}}; the API server accepts '
                    "the binding, and the scheduler never schedules the pod (it is assigned) and "
                    "counts it on no node until a node of that name is added")
        return None

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        # A pod bound to a node that does not exist is accepted, as the API server accepts it:
        # the cache keeps it for that node (docs/loader-references.md).
        sim.apiserver.create_pod(params["pod"])


SPEC = AddPod()
