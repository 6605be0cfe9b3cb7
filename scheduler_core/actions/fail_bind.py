"""failBind: the API server refuses the next binding of a pending pod (by default with its
timeout filter's words), so the scheduler's failure path can be watched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scheduler_core.actions.delete_pod import parse_pod_ref
from scheduler_core.actions.names import Ref, pod_key
from scheduler_core.actions.spec import ActionSpec, ParseContext
from scheduler_core.api.errors import ActionError

if TYPE_CHECKING:
    from scheduler_core.actions.refusal import TimelineRefusal

# What the API server answers a binding a failBind action refuses (its timeout filter's words).
DEFAULT_BIND_FAILURE = "Timeout: request did not complete within requested timeout - context deadline exceeded"
MAX_BIND_FAILURE_MESSAGE = 1024


class FailBind(ActionSpec):
    name = "failBind"
    fields = ("pod", "message")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        pod = parse_pod_ref(ctx, m)
        message = ctx.string(m, "message") or DEFAULT_BIND_FAILURE
        if len(message) > MAX_BIND_FAILURE_MESSAGE:
            raise ctx.err("message", f"Too long: may not be more than {MAX_BIND_FAILURE_MESSAGE} characters")
        return {"pod": pod, "message": message}

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Pod", pod_key(params["pod"]), "pod"),)

    def check(self, sim: Any, params: dict[str, Any]) -> None:
        key = pod_key(params["pod"])
        node = sim.scheduler.cluster.pods[key].node_name
        if node:
            raise ActionError(f'pod "{key}" is already bound to node "{node}": only a pending pod\'s binding can fail')

    def conflict(self, params: dict[str, Any], cluster: Any) -> TimelineRefusal | None:
        from scheduler_core.actions.refusal import TimelineRefusal

        key = pod_key(params["pod"])
        node = cluster.pods[key].node_name
        if node:
            return TimelineRefusal(self.name, "Pod", key, "AlreadyBound",
                                   f'pod "{key}" is already bound to node "{node}": there is no binding left to fail')
        return None

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        sim.apiserver.fail_next_bind(pod_key(params["pod"]), params["message"])


SPEC = FailBind()
