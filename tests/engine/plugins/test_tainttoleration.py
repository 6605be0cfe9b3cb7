"""TaintToleration Filter/Score/NormalizeScore and hints (cases from taint_toleration_test.go)."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Node, Pod, Taint, Toleration
from scheduler_core.framework.plugins.tainttoleration import TaintToleration
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import ActionType, NodeInfo, QueueingHint
from tests.engine.plugins.util import run_filter, run_score

NS, PNS, NE = "NoSchedule", "PreferNoSchedule", "NoExecute"


def n(name="n", *taints: Taint) -> NodeInfo:
    return NodeInfo(Node(name=name, taints=list(taints)))


def p(*tols: Toleration) -> Pod:
    return Pod(name="p", tolerations=list(tols))


FILTER = [
    ("no tolerations, tainted node", p(), [Taint("dedicated", "user1", NS)], False),
    ("equal toleration", p(Toleration("dedicated", "Equal", "user1", NS)), [Taint("dedicated", "user1", NS)], True),
    ("value mismatch", p(Toleration("dedicated", "Equal", "user2", NS)), [Taint("dedicated", "user1", NS)], False),
    ("exists", p(Toleration("foo", "Exists", "", NS)), [Taint("foo", "bar", NS)], True),
    ("empty effect tolerates all effects", p(Toleration("foo", "Equal", "bar")), [Taint("foo", "bar", NE)], True),
    ("effect mismatch", p(Toleration("foo", "Equal", "bar", NE)), [Taint("foo", "bar", NS)], False),
    ("PreferNoSchedule does not filter", p(), [Taint("foo", "bar", PNS)], True),
    ("empty key Exists tolerates everything", p(Toleration("", "Exists")), [Taint("a", "b", NE), Taint("c", "", NS)],
     True),
    ("one of two tolerated", p(Toleration("a", "Exists")), [Taint("a", "", NS), Taint("b", "", NE)], False),
    ("NoExecute untolerated", p(), [Taint("x", "", NE)], False),
]


@pytest.mark.parametrize("name,pod,taints,fits", FILTER, ids=[c[0] for c in FILTER])
def test_filter(name, pod, taints, fits):
    st = run_filter(TaintToleration(None, None), pod, n("n", *taints))
    if fits:
        assert st is None
    else:
        assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert st.reasons == ["node(s) had untolerated taint(s)"]


def test_score_reverse_normalized():
    pod = p(Toleration("foo", "Equal", "bar", PNS), Toleration("cpu-type", "Equal", "arm64", ""))
    nis = [
        n("n1"),
        n("n2", Taint("foo", "bar", PNS), Taint("cpu-type", "arm64", PNS)),  # all tolerated
        n("n3", Taint("foo", "blah", PNS)),  # 1 untolerated
        n("n4", Taint("a", "", PNS), Taint("b", "", PNS), Taint("c", "", NS)),  # 2 untolerated (NoSchedule ignored)
    ]
    assert run_score(TaintToleration(None, None), pod, nis) == [100, 100, 50, 0]


def test_score_no_intolerable_taints_everyone_max():
    assert run_score(TaintToleration(None, None), p(), [n("a"), n("b")]) == [100, 100]


def test_toleration_with_noschedule_effect_does_not_count_for_score():
    pod = p(Toleration("foo", "Exists", "", NS))
    assert run_score(TaintToleration(None, None), pod, [n("a", Taint("foo", "", PNS)), n("b")]) == [0, 100]


def test_events_and_hints():
    pl = TaintToleration(None, None)
    evs = pl.events_to_register()
    assert [(e.event.resource, e.event.action_type) for e in evs] == [
        ("Node", ActionType.ADD | ActionType.UPDATE_NODE_TAINT), ("Pod", ActionType.UPDATE_POD_TOLERATIONS)]
    node_hint, pod_hint = evs[0].queueing_hint_fn, evs[1].queueing_hint_fn
    pod = p()
    tainted = Node(name="n", taints=[Taint("a", "", NS)])
    clean = Node(name="n")
    assert node_hint(pod, None, clean) == QueueingHint.QUEUE
    assert node_hint(pod, None, tainted) == QueueingHint.SKIP
    assert node_hint(pod, tainted, clean) == QueueingHint.QUEUE
    assert node_hint(pod, clean, clean) == QueueingHint.SKIP
    other = Pod(name="other", uid="o")
    assert pod_hint(Pod(name="p", uid="x"), None, Pod(name="p", uid="x")) == QueueingHint.QUEUE
    assert pod_hint(Pod(name="p", uid="x"), None, other) == QueueingHint.SKIP
