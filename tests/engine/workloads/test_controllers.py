"""Workload controllers at load time: pods named, labelled and owned as upstream creates them."""

from __future__ import annotations

import re
import textwrap

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads.naming import ALPHANUMS, compute_hash, fnv32a, safe_encode
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {capacity: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
status: {capacity: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: cp, labels: {zone: a}}
spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
status: {capacity: {cpu: "4", memory: 8Gi}}
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
"""

SUFFIX = f"[{ALPHANUMS}]{{5}}"


def load(*docs: str):
    return load_scenario_text("---\n".join(textwrap.dedent(d) for d in docs), source="t.yaml")


def test_fnv32a_and_safe_encode_follow_upstream_forms():
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C  # the published FNV-1a 32-bit test vector
    assert safe_encode("0123456789") == "".join(ALPHANUMS[ord(c) % 27] for c in "0123456789")
    assert compute_hash({"a": 1}) != compute_hash({"a": 1}, 1)


def test_deployment_rolls_out_a_replicaset_and_pods():
    sc = load(NODES, DEPLOYMENT)
    rs = [w for w in sc.workloads if w.kind == "ReplicaSet"]
    assert len(rs) == 1
    name = rs[0].name
    assert re.fullmatch(f"web-[{ALPHANUMS}]+", name)
    pod_hash = name.removeprefix("web-")
    assert rs[0].selector.match_labels == {"app": "web", "pod-template-hash": pod_hash}
    assert len(sc.pods) == 3
    for p in sc.pods:
        assert re.fullmatch(f"{name}-{SUFFIX}", p.name)
        assert p.labels == {"app": "web", "pod-template-hash": pod_hash}
        assert [(o.kind, o.name, o.controller) for o in p.owner_references] == [("ReplicaSet", name, True)]
    assert len({p.name for p in sc.pods}) == 3
    # Deterministic: loading again gives the same names.
    assert [p.name for p in load(NODES, DEPLOYMENT).pods] == [p.name for p in sc.pods]
    assert "default/web" in sc.load_summary.scale_targets


def test_statefulset_ordinals_in_order_and_existing_ones_kept():
    sts = """
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db}
    spec:
      replicas: 3
      serviceName: db
      selector: {matchLabels: {app: db}}
      template:
        metadata: {labels: {app: db}}
        spec: {containers: [{name: c, image: pg}]}
    """
    existing = """
    apiVersion: v1
    kind: Pod
    metadata:
      name: db-1
      labels: {app: db}
      ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: x, controller: true}]
    spec: {nodeName: n1, containers: [{name: c, image: pg}]}
    """
    sc = load(NODES, sts)
    assert [p.name for p in sc.pods] == ["db-0", "db-1", "db-2"]
    assert sc.pods[2].labels["apps.kubernetes.io/pod-index"] == "2"
    assert sc.pods[2].labels["statefulset.kubernetes.io/pod-name"] == "db-2"
    sc = load(NODES, existing, sts)
    assert [p.name for p in sc.pods] == ["db-1", "db-0", "db-2"]
    assert sc.pods[0].node_name == "n1"


def test_daemonset_one_pod_per_eligible_node_with_upstream_affinity_and_tolerations():
    ds = """
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent, namespace: kube-system}
    spec:
      selector: {matchLabels: {app: agent}}
      template:
        metadata: {labels: {app: agent}}
        spec:
          nodeSelector: {zone: a}
          containers: [{name: c, image: agent}]
    """
    sc = load(NODES, ds)
    # n2 is in zone b; cp's control-plane taint is not tolerated by the template.
    assert len(sc.pods) == 1
    pod = sc.pods[0]
    assert re.fullmatch(f"agent-{SUFFIX}", pod.name)
    term = pod.affinity.node_affinity.required.node_selector_terms
    assert len(term) == 1 and term[0].match_expressions == []
    assert [(f.key, f.operator, f.values) for f in term[0].match_fields] == [("metadata.name", "In", ("n1",))]
    assert {(t.key, t.effect) for t in pod.tolerations} == {
        ("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"), ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"), ("node.kubernetes.io/unschedulable", "NoSchedule")}
    sim = Simulation(sc)
    assert sim.result(sim.run())["pods"][0]["node"] == "n1"


def test_job_parallelism_and_labels():
    job = """
    apiVersion: batch/v1
    kind: Job
    metadata: {name: crunch, uid: 11111111-2222-3333-4444-555555555555}
    spec:
      parallelism: 4
      completions: 3
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
    """
    sc = load(NODES, job)
    assert len(sc.pods) == 3
    for p in sc.pods:
        assert re.fullmatch(f"crunch-{SUFFIX}", p.name)
        assert p.labels["batch.kubernetes.io/job-name"] == "crunch"
        assert p.labels["batch.kubernetes.io/controller-uid"] == "11111111-2222-3333-4444-555555555555"
        assert p.owner_references[0].kind == "Job"


def test_template_not_matching_selector_is_an_error_naming_the_field():
    bad = DEPLOYMENT.replace("metadata: {labels: {app: web}}", "metadata: {labels: {app: other}}")
    with pytest.raises(ScenarioError) as err:
        load(NODES, bad)
    assert err.value.document == 4
    assert err.value.field == "spec.template.metadata.labels"
    assert "selector" in err.value.reason


def test_default_spreading_sees_the_replicaset_pods():
    sc = load(NODES, DEPLOYMENT.replace("replicas: 3", "replicas: 4"))
    sim = Simulation(sc, seed=3)
    nodes = [r["node"] for r in sim.result(sim.run())["pods"]]
    # The system-default spreading (via the ReplicaSet's selector) evens them out.
    assert sorted(nodes) == ["n1", "n1", "n2", "n2"]
