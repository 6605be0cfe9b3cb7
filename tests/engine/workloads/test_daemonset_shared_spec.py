"""A DaemonSet's pods are made from one copy of its template's spec (each pod's own part is its
node affinity), and give the manifests the per-pod deep copy gave: same fields, same order, same
values; the user's template is never shared with them, and no pod's own part with another's."""

from __future__ import annotations

import copy
import textwrap

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads import daemonset as daemonset_module
from scheduler_core.controllers.workloads import expand_workloads
from scheduler_core.controllers.workloads.template import pod_from_template
from scheduler_core.loader import load_scenario_text
from scheduler_core.loader.cluster_import import normalize_dump
from scheduler_core.loader.yaml_input import decode_yaml
from scheduler_core.simulation import Simulation

NODES = "".join(f"""\
apiVersion: v1
kind: Node
metadata: {{name: n{i}, labels: {{zone: z{i % 2}}}}}
status: {{capacity: {{cpu: '4', memory: 8Gi, pods: '110'}}}}
---
""" for i in range(4))

SPECS = {
    "plain": "containers: [{name: c, image: x}]",
    "host network and a toleration": """\
        hostNetwork: true
        tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,
                       tolerationSeconds: 30}, {key: dedicated, operator: Exists}]
        containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]""",
    "affinity with preferred and required terms": """\
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: d}}, topologyKey: zone}
          nodeAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - {weight: 5, preference: {matchExpressions: [{key: zone, operator: In, values: [z1]}]}}
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [z0]}]}]
        containers: [{name: c, image: x}]""",
    "empty affinity": "affinity: {}\ncontainers: [{name: c, image: x}]",
    "null node affinity": "affinity: {nodeAffinity: null}\ncontainers: [{name: c, image: x}]",
}


def _daemonset(spec: str) -> str:
    body = textwrap.indent(textwrap.dedent(spec), " " * 6)
    return ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: default}\n"
            "spec:\n  selector: {matchLabels: {app: d}}\n  template:\n"
            f"    metadata: {{labels: {{app: d}}}}\n    spec:\n{body}\n")


def _expanded_pods(text: str) -> tuple[list[dict], dict]:
    docs, _ = decode_yaml(text, "s.yaml")
    template = next(d for d in docs if d and d.get("kind") == "DaemonSet")["spec"]["template"]
    out, _ = expand_workloads(*normalize_dump(docs), "s.yaml")
    pods = [o for d in out if isinstance(d, dict)
            for o in (d.get("items") if d.get("kind") == "List" else [d]) if o.get("kind") == "Pod"]
    return pods, template


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_pods_are_those_a_deep_copy_per_node_gave(spec):
    pods, template = _expanded_pods(NODES + _daemonset(spec))
    assert pods
    for pod in pods:
        node = daemonset_module.target_node(pod)
        expected = pod_from_template(template, name="x", namespace="default",
                                     owner={}, labels={})["spec"]
        daemonset_module.add_daemon_tolerations(expected)
        daemonset_module.replace_node_name_affinity(expected, node)
        # Equal in content and in every mapping's key order (repr shows both).
        assert repr(pod["spec"]) == repr(expected)


def test_the_template_and_each_pods_affinity_are_not_shared():
    pods, template = _expanded_pods(NODES + _daemonset(SPECS["affinity with preferred and required terms"]))
    before = copy.deepcopy(template)
    assert len(pods) == 2  # the template requires zone z0
    first, second = (p["spec"] for p in pods)
    assert first["affinity"] is not second["affinity"]
    assert first["affinity"]["nodeAffinity"] is not second["affinity"]["nodeAffinity"]
    # Replacing the required term of one pod (what the controller does per node) leaves the
    # other pod's and the user's template as they were.
    daemonset_module.replace_node_name_affinity(first, "elsewhere")
    assert daemonset_module.target_node(pods[1]) == "n2"
    assert template == before
    assert all(v is not template["spec"].get(k) for p in pods for k, v in p["spec"].items()
               if isinstance(v, (dict, list)))


@pytest.mark.parametrize("affinity", ["{nodeAffinity: [x]}", "[[a, b]]", "x"])
def test_a_malformed_affinity_is_refused_as_by_the_copying_path(monkeypatch, affinity):
    text = NODES + _daemonset(f"affinity: {affinity}\ncontainers: [{{name: c, image: x}}]")
    with pytest.raises(ScenarioError) as shared:
        load_scenario_text(text, source="s.yaml")
    monkeypatch.setattr(daemonset_module, "_node_pod_spec", lambda base, node_name: None)
    with pytest.raises(ScenarioError) as copied:
        load_scenario_text(text, source="s.yaml")
    assert str(shared.value) == str(copied.value)


def test_running_the_daemon_pods_changes_no_loaded_pod():
    """The daemon pods share their parsed parts (containers, tolerations...) and their
    manifests' unchanged values: a run that binds them, then taints a node and evicts its
    daemon pod, leaves every loaded pod equal to a fresh load (a change made in place to a
    shared part would show in every replica)."""
    text = NODES + _daemonset(SPECS["host network and a toleration"]) + """\
---
apiVersion: playground.kube-scheduler.dev/v1
kind: Timeline
actions:
- {at: 5, action: addTaint, node: n1, taint: {key: gone, effect: NoExecute}}
"""
    scenario = load_scenario_text(text, source="s.yaml")
    before = copy.deepcopy(scenario.pods)
    daemon = [p for p in scenario.pods if p.owner_references]
    assert len(daemon) == 4
    assert all(p.containers is daemon[0].containers for p in daemon)
    assert all(p.tolerations is daemon[0].tolerations for p in daemon)
    sim = Simulation(scenario, graceful_termination=True)
    sim.run(600)
    left = {p.node_name for p in sim.apiserver.cluster.pods.values()}
    assert "n0" in left and "n1" not in left  # the run evicted the daemon pod of n1
    assert scenario.pods == before
    assert load_scenario_text(text, source="s.yaml").pods == before
