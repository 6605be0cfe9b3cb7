"""Timeline documents: parsing into TimelineActions with validated API objects."""

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.types import Node, Pod, Taint

HEAD = "apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"


def timeline(body: str) -> str:
    return HEAD + body


def test_all_actions():
    sc = load(NODE, pod(name="early"), timeline("""\
- at: 10
  action: addPod
  pod:
    apiVersion: v1
    kind: Pod
    metadata: {name: late, namespace: ns1}
    spec:
      containers: [{name: app, resources: {limits: {cpu: 500m}}}]
- {at: 5, action: deletePod, pod: early}
- at: 30
  action: addNode
  node: {apiVersion: v1, kind: Node, metadata: {name: n9}, status: {capacity: {cpu: '8'}}}
- {at: 40, action: cordon, node: n9}
- {at: 45, action: uncordon, node: n1}
- {at: 50, action: addTaint, node: n9, taint: {key: m, effect: NoExecute}}
- {at: 60, action: removeTaint, node: n9, key: m}
- {at: 61, action: removeTaint, node: n9, key: m, effect: NoSchedule}
- {at: 70, action: setNodeLabels, node: n9, labels: {disk: ssd, old: null}}
- {at: 80.5, action: deleteNode, node: n9}
"""))
    tl = sc.timeline
    assert [a.action for a in tl] == ["deletePod", "addPod", "addNode", "cordon", "uncordon",
                                      "addTaint", "removeTaint", "removeTaint", "setNodeLabels",
                                      "deleteNode"]
    assert [a.time for a in tl] == [5, 10, 30, 40, 45, 50, 60, 61, 70, 80.5]
    assert tl[0].params == {"pod": "default/early"}
    late = tl[1].params["pod"]
    assert isinstance(late, Pod) and late.key == "ns1/late"
    assert late.containers[0].requests["cpu"] == late.containers[0].limits["cpu"]
    assert late.creation_index == 3 and late.uid and late.uid != sc.pods[0].uid
    assert isinstance(tl[2].params["node"], Node)
    assert tl[2].params["node"].allocatable["pods"] == 110
    assert tl[5].params["taint"] == Taint(key="m", value="", effect="NoExecute")
    assert tl[6].params == {"node": "n9", "key": "m", "effect": None}
    assert tl[7].params["effect"] == "NoSchedule"
    assert tl[8].params["labels"] == {"disk": "ssd", "old": None}
    assert {ns.name for ns in sc.namespaces} >= {"default"}


def test_ties_keep_document_order():
    sc = load(NODE, timeline("""\
- {at: 1, action: cordon, node: n1}
- {at: 1, action: uncordon, node: n1}
- {at: 0, action: addTaint, node: n1, taint: {key: a, effect: NoSchedule}}
"""))
    assert [a.action for a in sc.timeline] == ["addTaint", "cordon", "uncordon"]


def test_timeline_pod_gets_priority_admission():
    sc = load("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: hi}\n"
              "value: 50\n", NODE, timeline("""\
- at: 1
  action: addPod
  pod: {apiVersion: v1, kind: Pod, metadata: {name: x},
        spec: {priorityClassName: hi, containers: [{name: a}]}}
"""))
    assert sc.timeline[0].params["pod"].priority == 50


@pytest.mark.parametrize("body,field,reason", [
    ("- {at: 1, action: explode, node: n1}", "actions[0].action", 'Unsupported value: "explode"'),
    ("- {action: cordon, node: n1}", "actions[0].at", "Required value"),
    ("- {at: -1, action: cordon, node: n1}", "actions[0].at", "greater than or equal to 0"),
    ("- {at: 1, action: cordon, node: ghost}", "actions[0].node", 'node "ghost" does not exist'),
    ("- {at: 1, action: deleteNode, node: n1}\n- {at: 2, action: cordon, node: n1}",
     "actions[1].node", "does not exist at t=2"),
    ("- {at: 1, action: deletePod, pod: nope}", "actions[0].pod", 'pod "default/nope" does not'),
    ("- {at: 1, action: cordon, node: n1, extra: 1}", "actions[0].extra", "unknown field"),
    ("- {at: 1, action: addTaint, node: n1, taint: {key: a, effect: Bad}}",
     "actions[0].taint.effect", 'Unsupported value: "Bad"'),
    ("- {at: 1, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: p},"
     " spec: {containers: [{name: a}]}}}", "actions[0].pod", 'pod "default/p" already exists'),
    ("- {at: 1, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: q},"
     " spec: {containers: [{name: a, resources: {requests: {cpu: x}}}]}}}",
     "actions[0].pod.spec.containers[0].resources.requests.cpu", 'invalid quantity "x"'),
    ("- {at: 1, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: n1}}}",
     "actions[0].node", 'node "n1" already exists'),
    ("- {at: 1, action: setNodeLabels, node: n1, labels: {a: -x}}", "actions[0].labels.a",
     "a valid label"),
])
def test_timeline_errors(body, field, reason):
    with pytest.raises(ScenarioError) as info:
        load(NODE, pod(), timeline(body + "\n"))
    e = info.value
    assert e.document == 3
    assert e.field == field
    assert reason in e.reason


def test_only_one_timeline():
    with pytest.raises(ScenarioError, match="only one Timeline"):
        load(NODE, timeline("  []"), timeline("  []"))
