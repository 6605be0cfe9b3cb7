"""replace_fields (the engine's cheaper dataclasses.replace) gives what dataclasses.replace gives."""

from __future__ import annotations

import dataclasses

import pytest

from scheduler_core.api.types import Container, Pod
from scheduler_core.framework.types import PodInfo, QueuedPodInfo, pod_requests
from scheduler_core.util.copy_fields import replace_fields


def _pod() -> Pod:
    return Pod("p", labels={"a": "b"}, containers=[Container("c", requests={"cpu": 1})], priority=3)


def test_replace_fields_equals_dataclasses_replace():
    pod = _pod()
    a = replace_fields(pod, node_name="n1", nominated_node_name="")
    b = dataclasses.replace(pod, node_name="n1", nominated_node_name="")
    assert a == b and a.__dict__ == b.__dict__ and type(a) is Pod
    assert a.labels is pod.labels and a.containers is pod.containers  # shared, as replace shares them
    assert pod.node_name == ""
    qpi = QueuedPodInfo(PodInfo(pod), attempts=2)
    q = replace_fields(qpi, pod_info=PodInfo(a))
    assert q.__dict__.keys() == dataclasses.replace(qpi, pod_info=q.pod_info).__dict__.keys()
    assert q.attempts == 2 and q.pod.node_name == "n1"
    with pytest.raises(TypeError):
        replace_fields(pod, no_such_field=1)


def test_replace_fields_refuses_what_it_cannot_copy_exactly():
    @dataclasses.dataclass
    class Post:
        x: int

        def __post_init__(self) -> None:
            self.x += 1

    with pytest.raises(TypeError):
        replace_fields(Post(1), x=2)
    pod = _pod()
    pod.extra = 1  # an attribute beyond the fields: falls back to dataclasses.replace
    assert not hasattr(replace_fields(pod, node_name="n"), "extra")


def test_pod_requests_memo_answers_copies():
    pod = _pod()
    first = pod_requests(pod)
    first["cpu"] = 99  # a caller changing its answer does not change the next one
    assert pod_requests(pod) == {"cpu": 1}
    assert pod_requests(replace_fields(pod, node_name="n")) == {"cpu": 1}
    other = dataclasses.replace(pod, containers=[Container("c", requests={"cpu": 2})])
    assert pod_requests(other) == {"cpu": 2}
