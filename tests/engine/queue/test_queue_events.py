"""Cluster event labels, matching and the Node/Pod update derivations (upstream events.go)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from queue_fakes import mkpod

from scheduler_core.api.types import Container, Node, Taint, Toleration
from scheduler_core.framework import events as fe
from scheduler_core.framework.types import ActionType as A
from scheduler_core.framework.types import ClusterEvent as CE
from scheduler_core.framework.types import EventResource as R


@pytest.mark.parametrize(
    "event,label",
    [
        (CE(R.NODE, A.ADD), "NodeAdd"),
        (fe.EVENT_ASSIGNED_POD_DELETE, "AssignedPodDelete"),
        (fe.EVENT_ASSIGNED_POD_ADD, "AssignedPodAdd"),
        (fe.EVENT_UNSCHEDULED_POD_ADD, "UnschedulablePodAdd"),
        (fe.EVENT_UNSCHEDULED_POD_UPDATE, "UnschedulablePodUpdate"),
        (CE(R.NODE, A.UPDATE_NODE_TAINT), "NodeUpdateNodeTaint"),
        (CE(R.POD, A.UPDATE_POD_TOLERATIONS), "PodUpdatePodToleration"),
        (CE(R.NODE, A.ALL), "NodeAll"),
        (fe.EVENT_UNSCHEDULABLE_TIMEOUT, "UnschedulableTimeout"),
        (fe.EVENT_FORCE_ACTIVATE, "ForceActivate"),
    ],
)
def test_labels(event, label):
    assert fe.event_label(event) == label


def test_action_type_bits_match_upstream():
    assert (A.ADD, A.DELETE, A.UPDATE_NODE_ALLOCATABLE, A.UPDATE_NODE_DECLARED_FEATURE) == (1, 2, 4, 128)
    assert (A.UPDATE_POD_LABEL, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM) == (256, 4096)
    assert A.ALL == 8191 and A.UPDATE == 8191 - 3


@pytest.mark.parametrize(
    "registered,incoming,ok",
    [
        (CE(R.NODE, A.UPDATE), CE(R.NODE, A.UPDATE_NODE_LABEL), True),
        (CE(R.NODE, A.UPDATE_NODE_LABEL), CE(R.NODE, A.UPDATE), False),
        (CE(R.NODE, A.ADD | A.UPDATE_NODE_TAINT), CE(R.NODE, A.UPDATE_NODE_TAINT), True),
        (CE(R.NODE, A.ALL), CE(R.NODE, A.DELETE), True),
        (CE(R.POD, A.DELETE), fe.EVENT_ASSIGNED_POD_DELETE, True),
        (CE(R.POD, A.DELETE), fe.EVENT_UNSCHEDULED_POD_DELETE, True),
        (CE(R.POD, A.ADD), fe.EVENT_ASSIGNED_POD_DELETE, False),
        (CE(R.NODE, A.ADD), fe.EVENT_ASSIGNED_POD_ADD, False),
        (CE(R.WILDCARD, A.ALL), CE(R.NODE, A.ADD), True),
        (CE(R.NODE, A.ALL), fe.EVENT_UNSCHEDULABLE_TIMEOUT, False),  # wildcard incoming
        (CE(R.WILDCARD, A.ADD), CE(R.NODE, A.ADD), True),
        (CE(R.WILDCARD, A.ADD), CE(R.NODE, A.DELETE), False),
    ],
)
def test_match_cluster_events(registered, incoming, ok):
    assert fe.match_cluster_events(registered, incoming) is ok
    assert registered.match(incoming) is ok


def node(**kw):
    base = dict(name="n1", labels={"a": "1"}, allocatable={"cpu": Fraction(4)}, taints=[])
    base.update(kw)
    return Node(**base)


@pytest.mark.parametrize(
    "old,new,actions",
    [
        (node(), node(), []),
        (node(), node(labels={"a": "2"}), [A.UPDATE_NODE_LABEL]),
        (node(), node(allocatable={"cpu": Fraction(8)}), [A.UPDATE_NODE_ALLOCATABLE]),
        (node(), node(taints=[Taint("k", "", "NoSchedule")]), [A.UPDATE_NODE_TAINT]),
        (node(unschedulable=True), node(), [A.UPDATE_NODE_TAINT]),  # un-cordon
        (node(), node(unschedulable=True), []),  # cordon cannot help anybody
        (node(unschedulable=True, taints=[Taint("k", "", "NoSchedule")]), node(),
         [A.UPDATE_NODE_TAINT, A.UPDATE_NODE_TAINT]),
        (node(), node(annotations={"x": "y"}), [A.UPDATE_NODE_ANNOTATION]),
        (node(), node(labels={"b": "1"}, allocatable={"cpu": Fraction(1)}),
         [A.UPDATE_NODE_ALLOCATABLE, A.UPDATE_NODE_LABEL]),
    ],
)
def test_node_scheduling_properties_change(old, new, actions):
    evs = fe.node_scheduling_properties_change(new, old)
    assert [e.action_type for e in evs] == actions
    assert all(e.resource == R.NODE for e in evs)


def pod(**kw):
    kw.setdefault("containers", [Container("c", requests={"cpu": Fraction(1, 2)})])
    return mkpod("p", **kw)


@pytest.mark.parametrize(
    "old,new,resource,actions",
    [
        (pod(), pod(), R.UNSCHEDULED_POD, [A.UPDATE]),
        (pod(), pod(labels={"x": "y"}), R.UNSCHEDULED_POD, [A.UPDATE_POD_LABEL]),
        (pod(scheduling_gates=["g"]), pod(), R.UNSCHEDULED_POD, [A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED]),
        (pod(scheduling_gates=["g", "h"]), pod(scheduling_gates=["g"]), R.UNSCHEDULED_POD, [A.UPDATE]),
        (pod(), pod(tolerations=[Toleration("k")]), R.UNSCHEDULED_POD, [A.UPDATE_POD_TOLERATIONS]),
        (pod(node_name="n"), pod(node_name="n", containers=[Container("c", requests={"cpu": Fraction(1, 4)})]),
         R.ASSIGNED_POD, [A.UPDATE_POD_SCALE_DOWN]),
        (pod(node_name="n"), pod(node_name="n", containers=[Container("c")]), R.ASSIGNED_POD,
         [A.UPDATE_POD_SCALE_DOWN]),  # request removed
        (pod(node_name="n"), pod(node_name="n", containers=[Container("c", requests={"cpu": Fraction(1)})]),
         R.ASSIGNED_POD, [A.UPDATE]),  # scale up is not an event of its own
        (pod(), pod(labels={"x": "y"}, tolerations=[Toleration("k")]), R.UNSCHEDULED_POD,
         [A.UPDATE_POD_LABEL, A.UPDATE_POD_TOLERATIONS]),
    ],
)
def test_pod_scheduling_properties_change(old, new, resource, actions):
    evs = fe.pod_scheduling_properties_change(new, old)
    assert [e.action_type for e in evs] == actions
    assert all(e.resource == resource for e in evs)


def test_build_queueing_hint_entries():
    from scheduler_core.backend.queue import build_queueing_hint_entries
    from scheduler_core.framework.interface import ClusterEventWithHint

    def fn(pod, old, new):
        return 1

    entries = build_queueing_hint_entries([
        ("NodeResourcesFit", [ClusterEventWithHint(CE(R.NODE, A.ADD), fn),
                              ClusterEventWithHint(CE(R.POD, A.DELETE), None)]),
        ("TaintToleration", [ClusterEventWithHint(CE(R.NODE, A.ADD | A.UPDATE_NODE_TAINT), fn)]),
        ("SchedulingGates", []),
        ("Legacy", None),
    ])
    by_plugin = {}
    for ev, name, f in entries:
        by_plugin.setdefault(name, []).append((ev, f))
    assert by_plugin["NodeResourcesFit"] == [
        (CE(R.NODE, A.ADD), fn), (CE(R.POD, A.DELETE), None), (CE(R.NODE, A.UPDATE_NODE_TAINT), None)]
    assert by_plugin["TaintToleration"] == [(CE(R.NODE, A.ADD | A.UPDATE_NODE_TAINT), fn)]
    assert "SchedulingGates" not in by_plugin
    assert len(by_plugin["Legacy"]) == len(fe.UNROLLED_WILDCARD_EVENTS)
    assert all(f is None and e.action_type == A.ALL for e, f in by_plugin["Legacy"])
