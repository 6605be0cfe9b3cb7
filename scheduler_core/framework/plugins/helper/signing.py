"""Pieces of a pod's batching signature that several plugins share (upstream's SignPod
fragments): two pods with equal fragments from every Filter and Score plugin of a profile are
interchangeable for opportunistic batching (framework/runtime/batch.py).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.types import pod_requests


class Unsignable(Exception):
    """The pod cannot be compared with others by this plugin."""


def tolerations(pod: Pod) -> Any:
    return tuple((t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in pod.tolerations)


def resources(pod: Pod) -> Any:
    return tuple(sorted(pod_requests(pod).items()))


def node_affinity(pod: Pod) -> Any:
    na = pod.affinity.node_affinity if pod.affinity else None
    return repr(na)


def host_ports(pod: Pod) -> Any:
    return tuple(sorted({p.host_port for c in (*pod.containers, *pod.init_containers)
                         for p in c.ports if p.host_port != 0}))


def images(pod: Pod) -> Any:
    from scheduler_core.backend.cache.cache import normalized_image_name

    return tuple(sorted({normalized_image_name(c.image) for c in (*pod.containers, *pod.init_containers)}))


VOLUMES: dict[str, Any] = {"volumes": ()}  # the fragment of a pod without volumes


def volumes(pod: Pod) -> dict[str, Any]:
    """upstream VolumesSigner: the pod's volume sources but configMap and secret ones, sorted."""
    if not pod.volumes:
        return VOLUMES
    return {"volumes": tuple(sorted(repr((v.source, v.claim_name, v.csi_driver, v.disk_id, v.read_only,
                                          v.monitors, v.pool, v.claim_template, sorted(v.raw.items(), key=str)))
                                    for v in pod.volumes if v.source not in ("configMap", "secret")))}
