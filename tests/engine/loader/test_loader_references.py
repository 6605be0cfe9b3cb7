"""References between objects, checked as the API server and its admission plugins check them
(docs/loader-references.md): the API server validates each object alone, so a reference to an
object the scenario lacks is loaded, with a warning saying what the scheduler will do; what an
admission plugin or a registry strategy refuses is refused here too, located."""

from __future__ import annotations

import textwrap

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {capacity: {cpu: '2', memory: 8Gi, pods: '110'}}
"""


def pod(name: str, extra: str = "", cpu: str = "1500m") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{textwrap.indent(extra, '  ')}"
            f"  containers: [{{name: c, image: x, resources: {{requests: {{cpu: '{cpu}'}}}}}}]\n")


def load(*docs: str):
    return load_scenario_text("\n---\n".join(docs), source="refs.yaml")


def test_a_pod_bound_to_a_node_the_scenario_lacks_loads_with_a_warning() -> None:
    sc = load(NODE, pod("orphan", "nodeName: ghost\n"))
    [w] = [w for w in sc.warnings if w.category == "reference"]
    assert (w.document, w.kind, w.name, w.field) == (2, "Pod", "default/orphan", "spec.nodeName")
    assert w.reason.startswith('node "ghost" is not in the scenario; the API server accepts the binding')
    assert "counts it on no node" in w.reason
    assert sc.pods[0].node_name == "ghost"


def test_the_orphan_is_never_scheduled_and_counts_on_no_node() -> None:
    """1.5 CPU bound to "ghost" and 1.5 CPU pending on a 2-CPU n1: the pending pod fits,
    because the scheduler's snapshot has no node the orphan counts on."""
    sim = Simulation(load(NODE, pod("orphan", "nodeName: ghost\n"), pod("web")))
    assert sim.run()
    pods = {p["name"]: p for p in sim.result(True)["pods"]}
    assert pods["orphan"]["status"] == "Bound" and pods["orphan"]["node"] == "ghost"
    assert pods["web"]["status"] == "Bound" and pods["web"]["node"] == "n1"
    [n1] = sim.view()["nodes"]
    assert n1["pods"] == ["default/web"] and n1["requested"]["cpu"] == 1500


# What upstream refuses across objects stays refused: (documents, document, field, reason)
STILL_REFUSED = [
    pytest.param([NODE, pod("p", "priorityClassName: nope\n")], 2, "spec.priorityClassName",
                 "no PriorityClass with name nope was found", id="priority-admission-unknown-class"),
    pytest.param([
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: true\n",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: b}\nvalue: 2\nglobalDefault: true\n"],
        2, "globalDefault", "Only one default can exist", id="priority-admission-second-default"),
    pytest.param([NODE, pod("p"), pod("p")], 3, "metadata.name", "already defined", id="already-exists"),
]


@pytest.mark.parametrize("docs,document,field,reason", STILL_REFUSED)
def test_what_upstream_admission_refuses_is_still_refused(docs, document, field, reason) -> None:
    with pytest.raises(ScenarioError) as info:
        load(*docs)
    assert (info.value.document, info.value.field) == (document, field), str(info.value)
    assert reason in str(info.value)


GHOST_NODE = ("{apiVersion: v1, kind: Node, metadata: {name: ghost, labels: {kubernetes.io/hostname: ghost}}, "
              "status: {capacity: {cpu: '2', memory: 8Gi, pods: '110'}}}")


def timeline(*actions: str) -> str:
    return ("apiVersion: playground.kube-scheduler.dev/v1\nkind: Timeline\nactions:\n"
            + "".join(f"- {a}\n" for a in actions))


def test_the_node_adopts_the_orphan_when_it_is_added() -> None:
    """As upstream's cache: the orphan's 1.5 CPU count on "ghost" once it exists, so a pod of
    1 CPU does not fit there (n1 is too small for it)."""
    small = NODE.replace("cpu: '2'", "cpu: 500m")
    sim = Simulation(load(small, pod("orphan", "nodeName: ghost\n"), pod("web", cpu="1"),
                          timeline(f"{{at: 5, action: addNode, node: {GHOST_NODE}}}")))
    assert sim.run()
    pods = {p["name"]: p for p in sim.result(True)["pods"]}
    assert pods["web"]["status"] == "Pending", pods["web"]
    ghost = next(n for n in sim.view()["nodes"] if n["name"] == "ghost")
    assert ghost["pods"] == ["default/orphan"] and ghost["requested"]["cpu"] == 1500


def test_deleting_the_orphan_before_its_node_comes_leaves_the_node_empty() -> None:
    sim = Simulation(load(NODE, pod("orphan", "nodeName: ghost\n"),
                          timeline("{at: 1, action: deletePod, pod: orphan}",
                                   f"{{at: 5, action: addNode, node: {GHOST_NODE}}}")))
    assert sim.run()
    ghost = next(n for n in sim.view()["nodes"] if n["name"] == "ghost")
    assert ghost["pods"] == [] and ghost["requested"]["cpu"] == 0


def test_a_timeline_pod_bound_to_a_missing_node_loads_with_a_warning() -> None:
    sc = load(NODE, timeline("{at: 3, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: late}, "
                             "spec: {nodeName: ghost, containers: [{name: c, image: x}]}}}"))
    [w] = [w for w in sc.warnings if w.category == "reference"]
    assert (w.kind, w.field) == ("Timeline", "actions[0].pod.spec.nodeName")
    assert w.reason.startswith('node "ghost" does not exist at t=3; the API server accepts the binding')
    sim = Simulation(sc)
    assert sim.run()
    assert {p["name"]: p["node"] for p in sim.result(True)["pods"]} == {"late": "ghost"}


def test_a_live_action_adds_a_pod_bound_to_a_missing_node() -> None:
    from scheduler_core.loader.timeline import parse_action

    sc = load(NODE)
    sim = Simulation(sc)
    act = parse_action({"action": "addPod", "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                                                    "spec": {"nodeName": "ghost", "containers": [{"name": "c"}]}}}, sc)
    sim.apply_action(act.action, act.params)
    assert sim.scheduler.cluster.pods["default/x"].node_name == "ghost"
    assert sim.scheduler.cache.pod_state("default/x") == "added"
