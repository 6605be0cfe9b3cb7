"""The memo behind `pod_requests` and the values derived from a pod's requests alone (a plugin's
integer requests, PodInfo's resource summary).

A pod's requests depend only on its containers' requests, its init containers' requests and
restart policies, its overhead and its pod-level requests. Those are never changed in place: a changed pod is a new
Pod, and a copy made with another field changed (the assumed pod with its node) keeps the same
lists. A cycle asks for one pod's requests several times (Fit's PreFilter and PreScore,
BalancedAllocation, the cache when it assumes and when the binding is observed), and the pods of
one workload (the replicas of a Deployment, the pods of a benchmark) ask for the same requests
again and again, each answer a sum of Fractions.

So the memo is two-level:
- by object: the pod's containers list, with the init-container list and overhead it came with,
  to the values kept for its content; a repeat question about the same pod costs one dict
  lookup and three identity checks;
- by content: the requests themselves (a tuple of hashable values) to the values already
  computed for any pod with those requests, so a pod seen for the first time whose requests
  equal an earlier pod's is answered without summing anything.

Both levels are emptied when they pass their limits (a pure function's cache: emptying it
changes no result), so they hold a few hundred entries whatever the number of pods. The
object level keeps the objects its key's id came from alive with the entry, so an id is never
reused while its entry lives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.api.types import Pod

# id(containers) -> (containers, init_containers, overhead, the values of that content)
_BY_OBJECT: dict[int, tuple[Any, Any, Any, dict[Any, tuple[Any, Any]]]] = {}
# content key -> {tag: (anchor, value)}
_BY_CONTENT: dict[tuple, dict[Any, tuple[Any, Any]]] = {}
_OBJECT_LIMIT = 256  # pods asked about in a cycle and the next: a handful
_CONTENT_LIMIT = 256  # distinct request shapes in play at once: a few per workload


def requests_key(pod: Pod) -> tuple:
    """What a pod's requests are computed from, as a hashable value: each container's requests,
    each init container's restart policy and requests, the overhead. Two pods with equal keys
    have equal requests (and equal values derived from them). Quantities enter as numerator and
    denominator: hashing a Fraction costs several times more than hashing two ints."""
    out: list[Any] = []
    for c in pod.containers:
        out.append(None)  # where a container begins
        for name, q in c.requests.items():
            out += (name, q.numerator, q.denominator)
    for c in pod.init_containers:
        out.append((c.restart_policy,))  # a tuple: never mistaken for a resource name
        for name, q in c.requests.items():
            out += (name, q.numerator, q.denominator)
    if pod.overhead:
        out.append(0)  # where the overhead begins (an int where a name would be)
        for name, q in pod.overhead.items():
            out += (name, q.numerator, q.denominator)
    pod_resources = pod.pod_resources
    if pod_resources is not None and pod_resources.requests:
        out.append(1)  # where the pod-level requests begin
        for name, q in pod_resources.requests.items():
            out += (name, q.numerator, q.denominator)
    return tuple(out)


def memoised(pod: Pod, tag: Any, anchor: Any, compute: Callable[[Pod], Any]) -> Any:
    """`compute(pod)` for a value that depends on the pod's requests alone, kept under `tag`
    (naming the computation). `anchor` is an object the computation also reads (None if none):
    a kept value is used only with the very same anchor, which the entry keeps alive. The kept
    value itself is returned: callers must not change it."""
    containers = pod.containers
    hit = _BY_OBJECT.get(id(containers))
    if (hit is not None and hit[0] is containers and hit[1] is pod.init_containers
            and hit[2] is pod.overhead):
        values = hit[3]
    else:
        key = requests_key(pod)
        values = _BY_CONTENT.get(key)
        if values is None:
            if len(_BY_CONTENT) >= _CONTENT_LIMIT:
                _BY_CONTENT.clear()
            values = _BY_CONTENT[key] = {}
        if len(_BY_OBJECT) >= _OBJECT_LIMIT:
            _BY_OBJECT.clear()
        _BY_OBJECT[id(containers)] = (containers, pod.init_containers, pod.overhead, values)
    kept = values.get(tag)
    if kept is not None and kept[0] is anchor:
        return kept[1]
    value = compute(pod)
    values[tag] = (anchor, value)
    return value


def clear() -> None:
    """Empty both levels (tests comparing against a fresh computation)."""
    _BY_OBJECT.clear()
    _BY_CONTENT.clear()
