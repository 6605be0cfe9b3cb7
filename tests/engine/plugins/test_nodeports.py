"""NodePorts (cases from node_ports_test.go): conflicts by ip/protocol/port incl. 0.0.0.0."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Container, ContainerPort, Node, Pod
from scheduler_core.framework.plugins.nodeports import NodePorts
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, QueueingHint
from tests.engine.plugins.util import run_filter


def pod(*ports: str, name="p", node="", sidecar: str | None = None) -> Pod:
    """ports as "proto/ip/port"."""
    def cp(s):
        proto, ip, port = s.split("/")
        return ContainerPort(container_port=8080, host_port=int(port), protocol=proto, host_ip=ip)
    inits = []
    if sidecar:
        inits = [Container(name="side", ports=[cp(sidecar)], restart_policy="Always")]
    return Pod(name=name, uid=name, node_name=node, containers=[Container(name="c", ports=[cp(s) for s in ports])],
               init_containers=inits)


def ni(*existing: Pod) -> NodeInfo:
    info = NodeInfo(Node(name="n"))
    for i, e in enumerate(existing):
        e.name = f"e{i}"
        info.add_pod(e)
    return info


CASES = [
    ("nothing running", pod("UDP/127.0.0.1/8080"), ni(), True),
    ("other port", pod("UDP/127.0.0.1/8080"), ni(pod("UDP/127.0.0.1/9090")), True),
    ("same udp port", pod("UDP/127.0.0.1/8080"), ni(pod("UDP/127.0.0.1/8080")), False),
    ("same tcp port", pod("TCP/127.0.0.1/8080"), ni(pod("TCP/127.0.0.1/8080")), False),
    ("different host ip", pod("TCP/127.0.0.1/8080"), ni(pod("TCP/127.0.0.2/8080")), True),
    ("different protocol", pod("UDP/127.0.0.1/8080"), ni(pod("TCP/127.0.0.1/8080")), True),
    ("second port conflicts", pod("TCP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ni(pod("UDP/127.0.0.1/8080")),
     False),
    ("wildcard vs specific", pod("TCP/0.0.0.0/8001"), ni(pod("TCP/127.0.0.1/8001")), False),
    ("specific vs wildcard", pod("TCP/127.0.0.1/8001"), ni(pod("TCP/0.0.0.0/8001")), False),
    ("empty ip is wildcard", pod("TCP//8001"), ni(pod("TCP/10.0.0.1/8001")), False),
    ("wildcard other protocol", pod("UDP/0.0.0.0/8001"), ni(pod("TCP/127.0.0.1/8001")), True),
    ("empty protocol is TCP", pod("/127.0.0.1/8001"), ni(pod("TCP/127.0.0.1/8001")), False),
    ("existing sidecar port counts", pod("TCP/127.0.0.1/8001"), ni(pod(sidecar="TCP/127.0.0.1/8001")), False),
    ("incoming sidecar port counts", pod(sidecar="TCP/127.0.0.1/8001"), ni(pod("TCP/127.0.0.1/8001")), False),
]


@pytest.mark.parametrize("name,p,info,fits", CASES, ids=[c[0] for c in CASES])
def test_filter(name, p, info, fits):
    st = run_filter(NodePorts(None, None), p, info)
    if fits:
        assert st is None
    else:
        assert st.code == Code.UNSCHEDULABLE
        assert st.reasons == ["node(s) didn't have free ports for the requested pod ports"]


def test_host_port_zero_skips_prefilter():
    pl = NodePorts(None, None)
    from scheduler_core.framework.cycle_state import CycleState
    p = Pod(name="p", containers=[Container(name="c", ports=[ContainerPort(container_port=80, host_port=0)])])
    _, st = pl.pre_filter(CycleState(), p, [])
    assert st.code == Code.SKIP


def test_pod_deleted_hint():
    pl = NodePorts(None, None)
    ev = pl.events_to_register()
    assert [(e.event.resource, e.event.action_type) for e in ev] == [("Pod", 2), ("Node", 1)]
    hint = ev[0].queueing_hint_fn
    target = pod("TCP/127.0.0.1/8080")
    assert hint(target, pod("TCP/127.0.0.1/8080", name="d", node="n"), None) == QueueingHint.QUEUE
    assert hint(target, pod("TCP/127.0.0.1/8080", name="d"), None) == QueueingHint.SKIP  # unscheduled
    assert hint(target, pod("TCP/127.0.0.1/9090", name="d", node="n"), None) == QueueingHint.SKIP
    assert hint(target, Pod(name="d", node_name="n"), None) == QueueingHint.SKIP
