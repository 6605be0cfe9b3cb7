"""NodeAffinity: nodeSelector + required terms (component-helpers matching semantics), the
metadata.name PreFilterResult, preferred-term scoring, addedAffinity args, queueing hint."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import (
    Affinity,
    Node,
    NodeSelector,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from scheduler_core.api.types import (
    NodeAffinity as NodeAffinitySpec,
)
from scheduler_core.api.types import (
    NodeSelectorRequirement as Req,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.helper.nodeaffinity import parse_int64
from scheduler_core.framework.plugins.nodeaffinity import NodeAffinity
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import ActionType, NodeInfo, QueueingHint
from tests.engine.plugins.util import run_score

REASON = "node(s) didn't match Pod's node affinity/selector"


def term(*exprs: Req, fields: list[Req] | None = None) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=list(exprs), match_fields=list(fields or []))


def pod_with(*terms: NodeSelectorTerm, selector: dict | None = None, preferred=None, required=True) -> Pod:
    na = NodeAffinitySpec(required=NodeSelector(list(terms)) if required else None, preferred=list(preferred or []))
    return Pod(name="p", node_selector=dict(selector or {}), affinity=Affinity(node_affinity=na))


def node(name="node1", **labels) -> Node:
    return Node(name=name, labels={k.replace("__", "/").replace("_", "-"): v for k, v in labels.items()})


def filt(pl: NodeAffinity, pod: Pod, n: Node):
    state = CycleState()
    res, st = pl.pre_filter(state, pod, [])
    if st is not None and st.code == Code.SKIP:
        return res, "skip", pl.filter(state, pod, NodeInfo(n))
    if st is not None:
        return res, st, None
    return res, None, pl.filter(state, pod, NodeInfo(n))


CASES = [
    # name, pod, node labels, fits
    ("no selector", Pod(name="p"), {}, True),
    ("missing labels", Pod(name="p", node_selector={"foo": "bar"}), {}, False),
    ("same labels", Pod(name="p", node_selector={"foo": "bar"}), {"foo": "bar"}, True),
    ("node has more labels", Pod(name="p", node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, True),
    ("In matches", pod_with(term(Req("foo", "In", ("bar", "value2")))), {"foo": "bar"}, True),
    ("Gt matches", pod_with(term(Req("kernel-version", "Gt", ("0204",)))), {"kernel-version": "0206"}, True),
    ("Lt", pod_with(term(Req("mem-type", "NotIn", ("DDR", "DDR2")))), {"mem-type": "DDR3"}, True),
    ("Exists", pod_with(term(Req("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, True),
    ("NotIn rejects", pod_with(term(Req("foo", "NotIn", ("bar",)))), {"foo": "bar"}, False),
    ("NotIn missing key matches", pod_with(term(Req("foo", "NotIn", ("bar",)))), {}, True),
    ("DoesNotExist", pod_with(term(Req("foo", "DoesNotExist"))), {"foo": "x"}, False),
    ("In without values never matches", pod_with(term(Req("foo", "In", ()))), {"foo": "bar"}, False),
    ("empty nodeSelectorTerms matches nothing", pod_with(), {"foo": "bar"}, False),
    ("empty term matches nothing", pod_with(term()), {"foo": "bar"}, False),
    ("ORed terms", pod_with(term(Req("foo", "In", ("x",))), term(Req("diffkey", "In", ("wrong", "value2")))),
     {"diffkey": "value2"}, True),
    ("ANDed expressions", pod_with(term(Req("foo", "In", ("bar",)), Req("baz", "Exists"))), {"foo": "bar"},
     False),
    ("nodeSelector AND affinity", pod_with(term(Req("foo", "Exists")), selector={"a": "b"}), {"foo": "1"}, False),
    ("Gt non-integer value never matches", pod_with(term(Req("v", "Gt", ("1.5",)))), {"v": "3"}, False),
    ("Gt non-integer label never matches", pod_with(term(Req("v", "Gt", ("1",)))), {"v": "3.0"}, False),
    ("Gt equal fails", pod_with(term(Req("v", "Gt", ("3",)))), {"v": "3"}, False),
    # "-1" and "+1" are valid integers but not valid label values: NewRequirement fails, no match.
    ("Lt negative value is not a label value", pod_with(term(Req("v", "Lt", ("-1",)))), {"v": "-5"}, False),
    ("Lt against a negative node label", pod_with(term(Req("v", "Lt", ("1",)))), {"v": "-5"}, True),
    ("Gt two values is a parse error", pod_with(term(Req("v", "Gt", ("1", "2")))), {"v": "3"}, False),
    ("Gt with plus sign", pod_with(term(Req("v", "Gt", ("+1",)))), {"v": "2"}, False),
    ("Gt with spaces is not an int", pod_with(term(Req("v", "Gt", (" 1",)))), {"v": "2"}, False),
    ("a bad term does not spoil a good one", pod_with(term(Req("v", "Gt", ("x",))), term(Req("v", "Exists"))),
     {"v": "2"}, True),
    ("unknown operator", pod_with(term(Req("v", "Foo", ("x",)))), {"v": "x"}, False),
    ("invalid label value in In", pod_with(term(Req("v", "In", ("a b",)))), {"v": "a b"}, False),
    ("matchFields name In", pod_with(term(fields=[Req("metadata.name", "In", ("node1",))])), {}, True),
    ("matchFields name NotIn", pod_with(term(fields=[Req("metadata.name", "NotIn", ("node1",))])), {}, False),
    ("matchFields unknown field In", pod_with(term(fields=[Req("metadata.uid", "In", ("node1",))])), {},
     False),
    ("matchFields two values is a parse error",
     pod_with(term(fields=[Req("metadata.name", "NotIn", ("a", "b"))])), {}, False),
    ("matchFields and expressions ANDed",
     pod_with(term(Req("foo", "Exists"), fields=[Req("metadata.name", "In", ("node1",))])), {}, False),
]


@pytest.mark.parametrize("name,pod,labels,fits", CASES, ids=[c[0] for c in CASES])
def test_filter(name, pod, labels, fits):
    pl = NodeAffinity(None, None)
    _, pst, st = filt(pl, pod, Node(name="node1", labels=labels))
    if pst not in (None, "skip"):
        assert not fits
        return
    if fits:
        assert st is None
    else:
        assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and st.reasons == [REASON]


def test_prefilter_skip_and_result():
    pl = NodeAffinity(None, None)
    assert filt(pl, Pod(name="p"), node())[1] == "skip"
    res, st, _ = filt(pl, pod_with(term(fields=[Req("metadata.name", "In", ("node1", "node2"))]),
                                   term(fields=[Req("metadata.name", "In", ("node3",))])), node())
    assert st is None and res.node_names == {"node1", "node2", "node3"}
    # a term without a name pin admits all nodes
    res, st, _ = filt(pl, pod_with(term(fields=[Req("metadata.name", "In", ("node1",))]),
                                   term(Req("foo", "Exists"))), node())
    assert res is None and st is None
    # ANDed pins intersect; disjoint pins conflict
    res, st, _ = filt(pl, pod_with(term(fields=[Req("metadata.name", "In", ("node1", "node2")),
                                                Req("metadata.name", "In", ("node2", "node3"))])), node())
    assert res.node_names == {"node2"}
    res, st, _ = filt(pl, pod_with(term(fields=[Req("metadata.name", "In", ("node1",)),
                                                Req("metadata.name", "In", ("node2",))])), node())
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and st.reasons == ["pod affinity terms conflict"]


def test_filter_without_prefilter_state_falls_back():
    pl = NodeAffinity(None, None)
    st = pl.filter(CycleState(), Pod(name="p", node_selector={"a": "b"}), NodeInfo(node()))
    assert st.reasons == [REASON]


def pref(weight: int, *exprs: Req) -> PreferredSchedulingTerm:
    return PreferredSchedulingTerm(weight, term(*exprs))


def test_score_preferred():
    pl = NodeAffinity(None, None)
    pod = pod_with(preferred=[pref(2, Req("foo", "In", ("bar",))), pref(4, Req("key", "In", ("value",))),
                              pref(0, Req("foo", "Exists")), pref(3)], required=False)
    nis = [NodeInfo(Node(name="n1", labels={"foo": "bar"})), NodeInfo(Node(name="n2", labels={"key": "value"})),
           NodeInfo(Node(name="n3", labels={"foo": "bar", "key": "value"})), NodeInfo(Node(name="n4"))]
    assert run_score(pl, pod, nis) == [33, 66, 100, 0]


def test_score_skip_without_preferences():
    assert run_score(NodeAffinity(None, None), Pod(name="p"), [NodeInfo(node())]) is None


def test_score_invalid_preferred_is_error():
    pl = NodeAffinity(None, None)
    pod = pod_with(preferred=[pref(1, Req("v", "Gt", ("x",)))], required=False)
    st = pl.pre_score(CycleState(), pod, [])
    assert st.code == Code.ERROR
    assert "for 'Gt', 'Lt' operators, the value must be an integer" in st.reasons[0]


def test_added_affinity():
    args = {"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["foo"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}}]}}
    pl = NodeAffinity(args, None)
    _, pst, st = filt(pl, Pod(name="p"), Node(name="n", labels={"zone": "bar"}))
    assert pst is None  # addedAffinity forbids Skip
    assert st.reasons == ["node(s) didn't match scheduler-enforced node affinity"]
    _, _, st = filt(pl, Pod(name="p"), Node(name="n", labels={"zone": "foo"}))
    assert st is None
    nis = [NodeInfo(Node(name="a", labels={"disk": "1"})), NodeInfo(Node(name="b"))]
    assert run_score(pl, Pod(name="p"), nis) == [100, 0]


def test_added_affinity_invalid():
    with pytest.raises(PluginArgsError):
        NodeAffinity({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["x"]}]}]}}}, None)


def test_events_and_hint():
    pl = NodeAffinity(None, None)
    (ev,) = pl.events_to_register()
    assert ev.event.resource == "Node" and ev.event.action_type == ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    pod = Pod(name="p", node_selector={"foo": "bar"})
    hint = ev.queueing_hint_fn
    assert hint(pod, None, Node(name="n", labels={"foo": "bar"})) == QueueingHint.QUEUE
    assert hint(pod, None, Node(name="n")) == QueueingHint.SKIP
    assert hint(pod, Node(name="n"), Node(name="n", labels={"foo": "bar"})) == QueueingHint.QUEUE
    assert hint(pod, Node(name="n", labels={"foo": "bar"}), Node(name="n", labels={"foo": "bar", "x": "y"})) == \
        QueueingHint.SKIP


@pytest.mark.parametrize("s,v", [("1", 1), ("-1", -1), ("+7", 7), ("007", 7), ("1.0", None), ("", None),
                                 ("1_000", None), (" 1", None), ("9223372036854775807", 2**63 - 1),
                                 ("9223372036854775808", None), ("٣", None)])
def test_parse_int64(s, v):
    assert parse_int64(s) == v
