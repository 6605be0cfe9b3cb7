"""ImageLocality: prefer nodes that already hold the pod's container images, weighting each image
by its size and by how widely it has spread (an image on every node earns little), clamped to a
23 MiB .. 1000 MiB-per-container range."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import MAX_NODE_SCORE, ScorePlugin
from scheduler_core.framework.plugins import names
from scheduler_core.framework.plugins.helper import signing
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import ImageStateSummary, NodeInfo

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Add ":latest" when the name has no tag (no ':' after the last '/')."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    total = 0
    states = node_info.image_states
    if not states:
        return 0
    for c in pod.init_containers:
        st = states.get(normalized_image_name(c.image))
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    for c in pod.containers:
        st = states.get(normalized_image_name(c.image))
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(ScorePlugin):
    name = names.IMAGE_LOCALITY

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        total_num_nodes = len(self.handle.snapshot.list())
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        return calculate_priority(image_scores, len(pod.init_containers) + len(pod.containers)), None

    def score_nodes(self, state: CycleState, pod: Pod,
                    nodes: list[NodeInfo]) -> tuple[list[int] | None, Status | None]:
        total_num_nodes = len(self.handle.snapshot.list())
        num_containers = len(pod.init_containers) + len(pod.containers)
        empty = calculate_priority(0, num_containers)  # a node holding none of the images
        if getattr(self.handle.snapshot, "num_with_images", None) == 0:  # no node holds any image
            return [empty] * len(nodes), None
        names = [normalized_image_name(c.image) for c in (*pod.init_containers, *pod.containers)]
        out = []
        for ni in nodes:
            states = ni.image_states
            if not states:
                out.append(empty)
                continue
            total = 0
            for name in names:
                st = states.get(name)
                if st is not None:
                    total += scaled_image_score(st, total_num_nodes)
            out.append(calculate_priority(total, num_containers))
        return out, None

    def score_extensions(self) -> None:
        return None

    def sign_pod(self, pod: Pod) -> dict[str, Any]:
        """This plugin's fragments of the pod's batching signature (upstream SignPod)."""
        return {"images": signing.images(pod)}
