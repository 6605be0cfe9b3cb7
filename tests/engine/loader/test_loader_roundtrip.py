"""load -> dump -> load gives equal objects, over every conformance case and bench input."""

import time
from pathlib import Path

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.export import dump_scenario
from scheduler_core.loader import load_scenario_file, load_scenario_text

SHARED = Path(__file__).resolve().parents[3].parent / "shared"  # ../shared beside the project
FILES = [str(p) for p in sorted((SHARED / "conformance" / "cases").glob("*.yaml"))] + [
    str(p) for p in sorted((SHARED / "bench").glob("*.yaml"))
]


def assert_round_trip(sc):
    again = load_scenario_text(dump_scenario(sc), source=sc.source)
    for attr in ("nodes", "pods", "priority_classes", "pdbs", "namespaces", "workloads", "config",
                 "timeline"):
        assert getattr(again, attr) == getattr(sc, attr), attr
    assert again == sc


@pytest.mark.skipif(not FILES, reason="shared cases not present")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_round_trip_files(path):
    start = time.perf_counter()
    sc = load_scenario_file(path)
    elapsed = time.perf_counter() - start
    print(f"{path}: {len(sc.nodes)} nodes, {len(sc.pods)} pods loaded in {elapsed:.2f}s")
    assert_round_trip(sc)


def test_round_trip_awkward_scenario():
    sc = load("""
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        parallelism: 1
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score: {enabled: [{name: NodeAffinity, weight: 10}], disabled: [{name: ImageLocality}]}
          pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated}}}]
        - schedulerName: other
        extenders: [{urlPrefix: 'http://x/', prioritizeVerb: p, weight: 2, httpTimeout: 250ms}]
    """, """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: std}
        value: 100
        globalDefault: true
        preemptionPolicy: Never
        description: the usual
    """, """
        apiVersion: v1
        kind: Node
        metadata: {name: n1, labels: {zone: a}, annotations: {x: y}}
        spec:
          unschedulable: true
          taints: [{key: k, value: v, effect: NoSchedule}, {key: e, effect: NoExecute}]
        status:
          capacity: {cpu: 4500m, memory: 1E, nvidia.com/gpu: 2}
          allocatable: {cpu: '4', memory: 7Gi}
          images: [{names: [a, b], sizeBytes: 10}]
    """, NODE.replace("n1", "n2"), pod("""
        nodeName: n1
        hostNetwork: true
        terminationGracePeriodSeconds: 5
        schedulerName: other
        nodeSelector: {zone: a}
        overhead: {cpu: 250m}
        tolerations: [{operator: Exists}, {key: k, value: v, effect: NoSchedule},
                      {key: e, operator: Exists, effect: NoExecute, tolerationSeconds: 9}]
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: cores, operator: Gt, values: ['3']}]
                matchFields: [{key: metadata.name, operator: In, values: [n1]}]
            preferredDuringSchedulingIgnoredDuringExecution:
            - {weight: 3, preference: {matchExpressions: [{key: zone, operator: Exists}]}}
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: web}}
              namespaces: [other]
              topologyKey: zone
              matchLabelKeys: [version]
              mismatchLabelKeys: [tenant]
          podAntiAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 7
              podAffinityTerm:
                labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [db]}]}
                namespaceSelector: {}
                topologyKey: kubernetes.io/hostname
        topologySpreadConstraints:
        - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3,
           labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [version],
           nodeAffinityPolicy: Ignore, nodeTaintsPolicy: Honor}
        initContainers:
        - {name: init, restartPolicy: Always, resources: {requests: {memory: 1Mi}}}
        containers:
        - name: main
          image: nginx
          ports: [{containerPort: 80}, {containerPort: 53, protocol: UDP, hostIP: 1.2.3.4}]
          resources: {requests: {cpu: 0.5}, limits: {cpu: 1, nvidia.com/gpu: 1}}
    """, meta="namespace: ns1, labels: {app: web, version: v1, tenant: t}, annotations: {a: b}")
              .replace("  containers:\n  - {name: app, image: pause}\n", ""),
        pod("schedulingGates: [{name: example.com/wait}]\npriority: 100\n", name="gated"),
        """
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: ns1}
        spec: {selector: {app: web}}
        """, """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: rs}
        spec: {selector: {matchExpressions: [{key: app, operator: Exists}]}}
        """, """
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: b, namespace: ns1}
        spec: {selector: {matchLabels: {app: web}}, minAvailable: 0}
        """, """
        apiVersion: playground.kube-scheduler.dev/v1
        kind: Timeline
        actions:
        - {at: 3, action: setNodeLabels, node: n2, labels: {a: b, c: null}}
        - {at: 1, action: addPod, pod: {apiVersion: v1, kind: Pod, metadata: {name: t},
                                        spec: {containers: [{name: a}]}}}
        - {at: 2, action: removeTaint, node: n1, key: k}
        - {at: 2, action: addTaint, node: n1, taint: {key: z, value: q, effect: PreferNoSchedule}}
        - {at: 4, action: deletePod, pod: ns1/p}
        - {at: 5, action: addNode, node: {apiVersion: v1, kind: Node, metadata: {name: n3}}}
        """)
    p = sc.pods[0]
    assert p.priority == 100 and p.preemption_policy == "Never" and p.priority_class_name == "std"
    assert sc.pdbs[0].disruptions_allowed == 1
    assert_round_trip(sc)
