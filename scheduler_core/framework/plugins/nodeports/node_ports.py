"""NodePorts: a node whose used host ports conflict with the pod's hostPorts is infeasible
(same protocol and port, on the same IP or where either side binds 0.0.0.0)."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import ContainerPort, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
)
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.plugins.helper.podutil import get_host_ports
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    HostPortInfo,
    NodeInfo,
    PreFilterResult,
    QueueingHint,
)

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_PORTS
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


class _PreFilterState(tuple):
    """The pod's host ports as (host_ip, protocol, host_port); immutable, so clone is itself."""

    def clone(self) -> _PreFilterState:
        return self


def fits_ports(want_ports: list[ContainerPort] | tuple, ports_in_use: HostPortInfo) -> bool:
    for p in want_ports:
        if ports_in_use.check_conflict(p.host_ip, p.protocol, p.host_port):
            return False
    return True


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    return fits_ports(get_host_ports(pod), node_info.used_ports)


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = names.NODE_PORTS
    filter_reads_only = True  # Filter keeps nothing per node

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        ports = get_host_ports(pod)
        if not ports:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(ports))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not node_info.used_ports.ports:
            return None
        if fits_ports(want, node_info.used_ports):
            return None
        return Status(Code.UNSCHEDULABLE, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: Any) -> int:
        """Queue only if the deleted pod was placed (bound or nominated) and freed a port we want."""
        deleted = old
        if not deleted.node_name and not deleted.nominated_node_name:
            return QueueingHint.SKIP
        ports = get_host_ports(deleted)
        if not ports:
            return QueueingHint.SKIP
        in_use = HostPortInfo()
        for p in ports:
            in_use.add(p.host_ip, p.protocol, p.host_port)
        if fits_ports(get_host_ports(pod), in_use):
            return QueueingHint.SKIP
        return QueueingHint.QUEUE

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"hostPorts": signing.host_ports(pod)}
