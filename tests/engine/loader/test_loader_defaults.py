"""Every default the loader applies on behalf of the apiserver, kubelet and pod strategy."""

from fractions import Fraction as F

from helpers import NODE, load, pod

from scheduler_core.loader import stable_uid


def test_pod_defaults():
    sc = load(NODE, pod())
    p = sc.pods[0]
    assert p.namespace == "default"
    assert p.scheduler_name == "default-scheduler"
    assert p.preemption_policy == "PreemptLowerPriority"
    assert p.priority == 0 and p.priority_class_name == ""
    assert p.termination_grace_period_seconds == 30
    assert p.node_name == "" and p.phase == "Pending"
    assert p.uid == stable_uid("Pod", "default", "p")
    assert p.containers[0].requests == {}


def test_uids_are_stable_and_distinct():
    a = load(NODE, pod(name="a"), pod(name="b"))
    b = load(NODE, pod(name="a"), pod(name="b"))
    assert [p.uid for p in a.pods] == [p.uid for p in b.pods]
    assert a.pods[0].uid != a.pods[1].uid
    assert a.nodes[0].uid == stable_uid("Node", "", "n1")


def test_creation_index_is_document_order_over_nodes_and_pods():
    sc = load(pod(name="a"), NODE, pod(name="b"))
    assert [p.creation_index for p in sc.pods] == [0, 2]
    assert sc.nodes[0].creation_index == 1


def test_limits_stand_in_for_missing_requests_per_resource():
    sc = load(NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          initContainers:
          - name: init
            resources:
              limits: {cpu: '2'}
          containers:
          - name: a
            resources:
              requests: {cpu: 100m}
              limits: {cpu: '1', memory: 1Gi, example.com/dongle: '2'}
          - name: b
    """)
    a, b = sc.pods[0].containers
    assert a.requests == {"cpu": F(1, 10), "memory": F(2**30), "example.com/dongle": F(2)}
    assert a.limits == {"cpu": F(1), "memory": F(2**30), "example.com/dongle": F(2)}
    assert b.requests == {} and b.limits == {}
    assert sc.pods[0].init_containers[0].requests == {"cpu": F(2)}


def test_resource_lists_round_up_to_milli():
    sc = load("""
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status:
          capacity: {cpu: 0.0001, memory: '1.5'}
    """, pod("""
        overhead: {cpu: 1n}
    """))
    assert sc.nodes[0].capacity["cpu"] == F(1, 1000)
    assert sc.nodes[0].capacity["memory"] == F(3, 2)
    assert sc.pods[0].overhead == {"cpu": F(1, 1000)}


def test_node_allocatable_defaults_to_capacity_and_pods_to_110():
    sc = load(NODE)
    n = sc.nodes[0]
    assert n.allocatable == {"cpu": F(4), "memory": F(8 * 2**30), "pods": F(110)}
    assert n.capacity["pods"] == F(110)


def test_explicit_allocatable_is_kept_and_pods_come_from_capacity():
    sc = load("""
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status:
          capacity: {cpu: '4', memory: 8Gi, pods: '20'}
          allocatable: {cpu: 3500m, memory: 7Gi}
    """)
    n = sc.nodes[0]
    assert n.allocatable == {"cpu": F(7, 2), "memory": F(7 * 2**30), "pods": F(20)}


def test_node_fields():
    sc = load("""
        apiVersion: v1
        kind: Node
        metadata: {name: n1, labels: {zone: a}, annotations: {note: x}}
        spec:
          unschedulable: true
          taints:
          - {key: dedicated, value: infra, effect: NoSchedule}
          - {key: gone, effect: NoExecute}
        status:
          capacity: {cpu: '1'}
          images:
          - names: [nginx:1.25, docker.io/library/nginx:1.25]
            sizeBytes: 500000000
          - names: [tiny]
    """)
    n = sc.nodes[0]
    assert n.unschedulable and n.labels == {"zone": "a"} and n.annotations == {"note": "x"}
    assert [(t.key, t.value, t.effect) for t in n.taints] == [
        ("dedicated", "infra", "NoSchedule"), ("gone", "", "NoExecute")]
    assert n.images[0].names == ["nginx:1.25", "docker.io/library/nginx:1.25"]
    assert n.images[0].size_bytes == 500000000 and n.images[1].size_bytes == 0


def test_toleration_operator_defaults_to_equal():
    sc = load(NODE, pod("""
        tolerations:
        - {key: k, value: v, effect: NoSchedule}
        - {operator: Exists}
        - {key: k2, operator: Exists, effect: NoExecute, tolerationSeconds: 30}
    """))
    t = sc.pods[0].tolerations
    assert (t[0].operator, t[0].key, t[0].value, t[0].effect) == ("Equal", "k", "v", "NoSchedule")
    assert (t[1].operator, t[1].key, t[1].effect) == ("Exists", "", "")
    assert t[2].toleration_seconds == 30


def test_ports_protocol_tcp_and_host_network_host_port():
    sc = load(NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - name: a
            ports:
            - {containerPort: 80, hostPort: 8080}
            - {containerPort: 53, protocol: UDP}
    """, """
        apiVersion: v1
        kind: Pod
        metadata: {name: hn}
        spec:
          hostNetwork: true
          containers:
          - name: a
            ports:
            - {containerPort: 9100}
    """)
    ports = sc.pods[0].containers[0].ports
    assert (ports[0].host_port, ports[0].protocol) == (8080, "TCP")
    assert (ports[1].host_port, ports[1].protocol) == (0, "UDP")
    hn = sc.pods[1]
    assert hn.host_network and hn.containers[0].ports[0].host_port == 9100


def test_topology_spread_policies_left_unset():
    sc = load(NODE, pod("""
        topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {app: web}}
        - maxSkew: 2
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          nodeAffinityPolicy: Ignore
          nodeTaintsPolicy: Honor
    """))
    c0, c1 = sc.pods[0].topology_spread_constraints
    assert c0.node_affinity_policy is None and c0.node_taints_policy is None
    assert c0.min_domains is None
    assert (c1.node_affinity_policy, c1.node_taints_policy) == ("Ignore", "Honor")
    assert c1.label_selector is None


def test_match_label_keys_merged_into_affinity_selectors():
    sc = load(NODE, pod("""
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: web}}
              topologyKey: kubernetes.io/hostname
              matchLabelKeys: [version, missing]
              mismatchLabelKeys: [tenant]
          podAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 10
              podAffinityTerm:
                labelSelector: {}
                topologyKey: zone
                matchLabelKeys: [nope]
    """, meta="labels: {app: web, version: v2, tenant: t1}"))
    aff = sc.pods[0].affinity
    term = aff.pod_anti_affinity.required[0]
    exprs = [(e.key, e.operator, e.values) for e in term.label_selector.match_expressions]
    assert exprs == [("version", "In", ("v2",)), ("tenant", "NotIn", ("t1",))]
    assert term.match_label_keys == ["version", "missing"]
    # a key the pod does not carry adds nothing
    assert aff.pod_affinity.preferred[0].pod_affinity_term.label_selector.is_empty()


def test_match_label_keys_merged_into_spread_selector():
    sc = load(NODE, pod("""
        topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {app: web}}
          matchLabelKeys: [pod-template-hash]
    """, meta="labels: {app: web, pod-template-hash: abc}"))
    c = sc.pods[0].topology_spread_constraints[0]
    assert [(e.key, e.operator, e.values) for e in c.label_selector.match_expressions] == [
        ("pod-template-hash", "In", ("abc",))]
    assert c.match_label_keys == ["pod-template-hash"]


def test_namespaces_get_metadata_name_label_and_implicit_ones_exist():
    sc = load(NODE, """
        apiVersion: v1
        kind: Namespace
        metadata: {name: team-a, labels: {tier: gold}}
    """, pod(meta="namespace: team-b"))
    names = {ns.name: ns.labels for ns in sc.namespaces}
    assert names["team-a"] == {"tier": "gold", "kubernetes.io/metadata.name": "team-a"}
    assert names["team-b"] == {"kubernetes.io/metadata.name": "team-b"}
    assert names["default"] == {"kubernetes.io/metadata.name": "default"}
    assert sc.pods[0].namespace == "team-b"


def test_workload_selectors():
    sc = load("""
        apiVersion: v1
        kind: Service
        metadata: {name: web}
        spec: {selector: {app: web}}
    """, """
        apiVersion: v1
        kind: ReplicationController
        metadata: {name: rc, namespace: ns1}
        spec:
          template:
            metadata: {labels: {app: legacy}}
    """, """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: rs}
        spec:
          selector:
            matchExpressions: [{key: app, operator: In, values: [a, b]}]
    """, """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db}
        spec: {selector: {matchLabels: {app: db}}}
    """, """
        apiVersion: v1
        kind: Service
        metadata: {name: headless}
        spec: {}
    """)
    w = {x.name: x for x in sc.workloads}
    assert w["web"].kind == "Service" and w["web"].selector.match_labels == {"app": "web"}
    assert w["rc"].namespace == "ns1" and w["rc"].selector.match_labels == {"app": "legacy"}
    assert w["rs"].selector.match_expressions[0].values == ("a", "b")
    assert w["db"].kind == "StatefulSet"
    assert w["headless"].selector is None


def test_list_kind_and_empty_documents():
    sc = load("---\n", """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: a}
        - apiVersion: v1
          kind: Node
          metadata: {name: b}
    """, "# only a comment\n", pod())
    assert [n.name for n in sc.nodes] == ["a", "b"]
    assert len(sc.pods) == 1


def test_absent_config_gives_defaults():
    sc = load(NODE)
    c = sc.config
    assert [p.scheduler_name for p in c.profiles] == ["default-scheduler"]
    assert c.profiles[0].plugins is None
    assert (c.percentage_of_nodes_to_score, c.pod_initial_backoff_seconds,
            c.pod_max_backoff_seconds, c.parallelism) == (0, 1, 10, 16)


def test_yaml_anchors_are_fine():
    sc = load("""
        apiVersion: v1
        kind: Node
        metadata: {name: a, labels: &l {zone: z1}}
        status: {capacity: &cap {cpu: '2'}}
    """, """
        apiVersion: v1
        kind: Node
        metadata: {name: b}
        status: {capacity: {cpu: '8'}}
    """)
    assert sc.nodes[0].capacity["cpu"] == 2
