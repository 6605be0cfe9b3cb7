"""Small pod helpers several plugins share (upstream scheduler/util)."""

from __future__ import annotations

from scheduler_core.api.types import ContainerPort, Pod


def same_pod(a: Pod, b: Pod) -> bool:
    """Upstream compares UIDs; pods built without one (tests) fall back to namespace/name."""
    if a.uid and b.uid:
        return a.uid == b.uid
    return a.key == b.key


def get_host_ports(pod: Pod) -> list[ContainerPort]:
    """util.GetHostPorts: ports with hostPort > 0 of the sidecar (restartPolicy Always) init
    containers, then of the regular containers."""
    ports: list[ContainerPort] = []
    for c in pod.init_containers:
        if c.restart_policy != "Always":
            continue
        for p in c.ports:
            if p.host_port > 0:
                ports.append(p)
    for c in pod.containers:
        for p in c.ports:
            if p.host_port > 0:
                ports.append(p)
    return ports
