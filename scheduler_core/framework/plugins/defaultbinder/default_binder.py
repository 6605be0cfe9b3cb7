"""DefaultBinder: binds the pod to the chosen node through the API (here: the runtime handle)."""

from __future__ import annotations

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import BindPlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.status import Status


class DefaultBinder(BindPlugin):
    name = names.DEFAULT_BINDER

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        bind = getattr(self.handle, "bind", None)
        if bind is None:
            return None
        return bind(pod, node_name)
