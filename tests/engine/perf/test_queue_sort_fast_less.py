"""PrioritySort's total order, handed to the queue's heaps, answers exactly as the queue's
composed comparison (QueueSort `less` both ways, then the timestamp sequence) on every pair,
ties of priority and of timestamp included."""

from __future__ import annotations

import itertools
import pickle
import random

from scheduler_core.api.types import Pod
from scheduler_core.backend.queue.scheduling_queue import PriorityQueue
from scheduler_core.framework.plugins.queuesort.priority_sort import PrioritySort, priority_sort_total_less
from scheduler_core.framework.types import PodInfo, QueuedPodInfo
from scheduler_core.scheduler import VirtualClock


def _pods(rng: random.Random, n: int) -> list[QueuedPodInfo]:
    out = []
    for i in range(n):
        pod = Pod(f"p{i}", priority=rng.choice([0, 0, 10, 1000, -5]))
        info = QueuedPodInfo(PodInfo(pod), timestamp=rng.choice([0.0, 0.0, 1.5, 2.0, 7.25]))
        info.timestamp_seq = rng.randrange(1, 20)
        out.append(info)
    return out


def test_the_total_order_is_the_composed_one_on_every_pair() -> None:
    plugin = PrioritySort()
    queue = PriorityQueue(less=plugin.less, clock=VirtualClock())
    rng = random.Random(7)
    pods = _pods(rng, 60)
    for a, b in itertools.product(pods, repeat=2):
        assert priority_sort_total_less(a, b) == queue._active_less(a, b)
    assert PrioritySort.total_less is priority_sort_total_less


def test_the_queue_pops_the_same_order_either_way_and_pickles() -> None:
    plugin = PrioritySort()
    orders = []
    for total in (None, plugin.total_less):
        queue = PriorityQueue(less=plugin.less, clock=VirtualClock(), total_less=total)
        queue = pickle.loads(pickle.dumps(queue))  # checkpoints hold the heap's comparison
        for info in _pods(random.Random(3), 200):
            queue.active_q.queue.add_or_update(info)
        orders.append([queue.active_q.queue.pop().pod_info.pod.name for _ in range(200)])
    assert orders[0] == orders[1] and len(set(orders[0])) == 200
