"""Every rejection: one clear error naming file, document, kind/name, field and why."""

import textwrap

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import (
    CLI_HINTS,
    MAX_INPUT_BYTES,
    SETTINGS_HINTS,
    Limits,
    load_scenario_file,
    load_scenario_text,
)


def err(*docs: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(*docs)
    return info.value


def container(resources: str) -> str:
    return pod(f"""
    containers:
    - name: app
      resources: {resources}
    """).replace("  containers:\n  - {name: app, image: pause}\n", "")


# (docs, document index, kind, name, field, fragment of reason)
CASES = [
    pytest.param([NODE, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}"], 2, "Secret", None,
                 "kind", 'unsupported kind "Secret"', id="unknown-kind"),
    pytest.param([NODE, "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: s}"], 2, "Pod", None,
                 "apiVersion", 'unsupported apiVersion "apps/v1"', id="wrong-apiversion"),
    pytest.param(["kind: Node\nmetadata: {name: a}"], 1, "Node", None, "apiVersion",
                 "no apiVersion", id="missing-apiversion"),
    pytest.param(["apiVersion: v1\nmetadata: {name: a}"], 1, None, None, "kind", "no kind",
                 id="missing-kind"),
    pytest.param([NODE, NODE.replace("n1", "n2"), container("{requests: {cpu: abc}}")], 3, "Pod", "default/p",
                 "spec.containers[0].resources.requests.cpu", 'invalid quantity "abc"',
                 id="bad-quantity"),
    pytest.param([NODE, container("{requests: {memory: -1Gi}}")], 2, "Pod", "default/p",
                 "spec.containers[0].resources.requests.memory", "greater than or equal to 0",
                 id="negative-request"),
    pytest.param([NODE, container("{requests: {cpu: '2'}, limits: {cpu: '1'}}")], 2, "Pod",
                 "default/p", "spec.containers[0].resources.requests",
                 "must be less than or equal to cpu limit of 1", id="requests-over-limits"),
    pytest.param([NODE, container("{requests: {nvidia.com/gpu: 500m}}")], 2, "Pod", "default/p",
                 "spec.containers[0].resources.requests.nvidia.com/gpu", "must be an integer",
                 id="fractional-extended-resource"),
    pytest.param([NODE, container("{requests: {foo: '1'}}")], 2, "Pod", "default/p",
                 "spec.containers[0].resources.requests.foo", "standard resource for containers",
                 id="unknown-resource-name"),
    pytest.param([NODE, pod(name="a"), pod(name="a")], 3, "Pod", "default/a", "metadata.name",
                 'Duplicate value: Pod "default/a" is already defined in document 2',
                 id="duplicate-pod"),
    pytest.param([NODE, NODE], 2, "Node", "n1", "metadata.name", "Duplicate value",
                 id="duplicate-node"),
    # A pod bound to a node the scenario lacks is accepted (as the API server does):
    # test_loader_references.py
    pytest.param([NODE, pod("priorityClassName: nope\n")], 2, "Pod", "default/p",
                 "spec.priorityClassName", "no PriorityClass with name nope was found",
                 id="unknown-priority-class"),
    pytest.param([NODE, pod("""
        nodeSelector: {a: b}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: a, operator: Like, values: [x]}]
    """)], 2, "Pod", "default/p",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[0].operator", "not a valid selector operator",
        id="bad-node-selector-operator"),
    pytest.param([NODE, pod("""
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions: [{key: cores, operator: Gt, values: ['1', '2']}]
    """)], 2, "Pod", "default/p",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[0].values", "single value", id="gt-two-values"),
    pytest.param([NODE, pod("""
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}
    """)], 2, "Pod", "default/p",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms", "at least one node selector term", id="no-node-selector-terms"),
    pytest.param([NODE, pod("""
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchFields: [{key: metadata.labels, operator: In, values: [x]}]
    """)], 2, "Pod", "default/p",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchFields[0].key", "not a valid field selector key",
        id="bad-match-field"),
    pytest.param([NODE, pod("""
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector:
                matchExpressions: [{key: app, operator: Exists, values: [x]}]
              topologyKey: zone
    """)], 2, "Pod", "default/p",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "labelSelector.matchExpressions[0].values", "may not be specified",
        id="label-selector-exists-with-values"),
    pytest.param([NODE, pod("""
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector:
                matchExpressions: [{key: app, operator: Gt, values: ['1']}]
              topologyKey: zone
    """)], 2, "Pod", "default/p",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "labelSelector.matchExpressions[0].operator", "not a valid selector operator",
        id="label-selector-gt"),
    pytest.param([NODE, pod("""
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: x}}
    """)], 2, "Pod", "default/p",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "topologyKey", "can not be empty", id="missing-topology-key"),
    pytest.param([NODE, pod("""
        affinity:
          podAffinity:
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 101
              podAffinityTerm: {topologyKey: zone, labelSelector: {}}
    """)], 2, "Pod", "default/p",
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
        "1-100", id="affinity-weight"),
    pytest.param([NODE, pod("""
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: zone
              matchLabelKeys: [app]
    """)], 2, "Pod", "default/p",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
        "matchLabelKeys", "must not be specified when labelSelector is not set",
        id="match-label-keys-without-selector"),
    pytest.param([NODE, pod("""
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: zone
              labelSelector: {matchLabels: {app: web}}
              matchLabelKeys: [app]
    """, meta="labels: {app: web}")], 2, "Pod", "default/p",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]",
        "exists in both matchLabelKeys and labelSelector", id="match-label-key-in-selector"),
    pytest.param([NODE, """
        apiVersion: v1
        kind: Node
        metadata: {name: n2}
        spec:
          taints: [{key: a, effect: NoWay}]
    """], 2, "Node", "n2", "spec.taints[0].effect", 'Unsupported value: "NoWay"',
        id="bad-taint-effect"),
    pytest.param([NODE, """
        apiVersion: v1
        kind: Node
        metadata: {name: n2}
        spec:
          taints: [{key: a, effect: NoSchedule}, {key: a, value: b, effect: NoSchedule}]
    """], 2, "Node", "n2", "spec.taints[1]", "unique by key and effect", id="duplicate-taint"),
    pytest.param([NODE, pod("tolerations: [{key: a, operator: Exists, value: x}]\n")], 2, "Pod",
                 "default/p", "spec.tolerations[0].operator",
                 "value must be empty when `operator` is 'Exists'", id="exists-with-value"),
    pytest.param([NODE, pod("tolerations: [{value: x}]\n")], 2, "Pod", "default/p",
                 "spec.tolerations[0].operator", "operator must be Exists when `key` is empty",
                 id="empty-key-equal"),
    pytest.param([NODE, pod("tolerations: [{key: a, operator: Ge, value: '1'}]\n")], 2, "Pod",
                 "default/p", "spec.tolerations[0].operator", 'Unsupported value: "Ge"',
                 id="toleration-gt"),
    pytest.param([NODE, pod("tolerations: [{key: a, effect: Sometimes}]\n")], 2, "Pod",
                 "default/p", "spec.tolerations[0].effect", 'Unsupported value: "Sometimes"',
                 id="toleration-effect"),
    pytest.param([NODE, "apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\nspec: {}"], 2,
                 "Pod", None, "metadata.name", "Required value", id="missing-name"),
    pytest.param([NODE, "apiVersion: v1\nkind: Node\nmetadata: {name: Bad_Name}"], 2, "Node",
                 "Bad_Name", "metadata.name", "RFC 1123 subdomain", id="invalid-name"),
    pytest.param([NODE, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}"], 2, "Pod",
                 "default/p", "spec.containers", "Required value", id="no-containers"),
    pytest.param([NODE, pod(meta="labels: {app: true}")], 2, "Pod", "default/p",
                 "metadata.labels.app", "expected a string", id="boolean-label"),
    pytest.param([NODE, pod(meta="labels: {app: -bad}")], 2, "Pod", "default/p",
                 "metadata.labels.app", "a valid label", id="invalid-label-value"),
    pytest.param([NODE, pod("""
        topologySpreadConstraints:
        - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
    """)], 2, "Pod", "default/p", "spec.topologySpreadConstraints[0].maxSkew",
        "must be greater than zero", id="max-skew-0"),
    pytest.param([NODE, pod("""
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}
    """)], 2, "Pod", "default/p", "spec.topologySpreadConstraints[0].whenUnsatisfiable",
        'Unsupported value: "Maybe"', id="bad-when-unsatisfiable"),
    pytest.param([NODE, pod("""
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
    """)], 2, "Pod", "default/p", "spec.topologySpreadConstraints[0].minDomains",
        "can only use minDomains if whenUnsatisfiable=DoNotSchedule", id="min-domains-anyway"),
    pytest.param([NODE, pod("""
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,
           nodeTaintsPolicy: Always}
    """)], 2, "Pod", "default/p", "spec.topologySpreadConstraints[0].nodeTaintsPolicy",
        'Unsupported value: "Always"', id="bad-node-taints-policy"),
    pytest.param([NODE, pod("""
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
        - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
    """)], 2, "Pod", "default/p",
        "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}", "Duplicate value",
        id="duplicate-spread"),
    pytest.param([NODE, pod("schedulingGates: [{name: a}]\nnodeName: n1\n")], 2, "Pod",
                 "default/p", "spec.nodeName", "schedulingGates", id="gated-and-bound"),
    pytest.param([NODE, pod("preemptionPolicy: Sometimes\n")], 2, "Pod", "default/p",
                 "spec.preemptionPolicy", 'Unsupported value: "Sometimes"',
                 id="bad-preemption-policy"),
    pytest.param([NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - {name: a, ports: [{containerPort: 80, hostPort: 80}]}
          - {name: b, ports: [{containerPort: 81, hostPort: 80}]}
    """], 2, "Pod", "default/p", "spec.containers[1].ports[0].hostPort",
        'Duplicate value: "80/TCP"', id="duplicate-host-port"),
    pytest.param([NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - {name: a, ports: [{containerPort: 70000}]}
    """], 2, "Pod", "default/p", "spec.containers[0].ports[0].containerPort",
        "between 1 and 65535", id="port-range"),
    pytest.param([NODE, """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers: [{name: a}, {name: a}]
    """], 2, "Pod", "default/p", "spec.containers[1].name", 'Duplicate value: "a"',
        id="duplicate-container"),
    pytest.param([NODE, """
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: b}
        spec: {minAvailable: 1, maxUnavailable: 1}
    """], 2, "PodDisruptionBudget", "default/b", "spec", "cannot be both set", id="pdb-both"),
    pytest.param([NODE, """
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: b}
        spec: {minAvailable: half}
    """], 2, "PodDisruptionBudget", "default/b", "spec.minAvailable", "valid percent string",
        id="pdb-bad-percent"),
    pytest.param([NODE, """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: huge}
        value: 2000000000
    """], 2, "PriorityClass", "huge", "value", "maximum allowed value", id="pc-too-high"),
    pytest.param([NODE, """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: system-mine}
        value: 5
    """], 2, "PriorityClass", "system-mine", "metadata.name", "reserved for system use",
        id="pc-system-prefix"),
    pytest.param([NODE, """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: a}
        value: 1
        globalDefault: true
    """, """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata: {name: b}
        value: 2
        globalDefault: true
    """], 3, "PriorityClass", "b", "globalDefault", "PriorityClass a is already marked as default",
        id="two-global-defaults"),
    pytest.param([NODE, "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}"],
                 2, "PriorityClass", "a", "value", "Required value", id="pc-no-value"),
    pytest.param([NODE, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration",
                  "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration"],
                 3, "KubeSchedulerConfiguration", None, None, "only one KubeSchedulerConfiguration",
                 id="two-configs"),
    pytest.param([NODE, """
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        percentageOfNodesToScore: 150
    """], 2, "KubeSchedulerConfiguration", None, "percentageOfNodesToScore",
        "not in valid range [0-100]", id="config-percentage"),
    pytest.param(["- just\n- a list"], 1, None, None, None, "expected a Kubernetes object",
                 id="not-a-mapping"),
]


@pytest.mark.parametrize("docs,index,kind,name,field,reason", CASES)
def test_error(docs, index, kind, name, field, reason):
    e = err(*docs)
    assert e.file == "scenario.yaml"
    assert e.document == index
    assert e.kind == kind
    assert e.name == name
    assert e.field == field
    assert reason in e.reason
    line = str(e)
    assert "\n" not in line
    assert line.startswith(f"scenario.yaml: document {index}")
    if kind:
        assert f"({kind}{' ' + name if name else ''})" in line
    if field:
        assert f": {field}: " in line


def test_message_format_example():
    e = err(NODE, NODE.replace("n1", "n2"), container("{requests: {cpu: abc}}").replace(
        "name: p", "name: web-1"))
    assert str(e).startswith(
        'scenario.yaml: document 3 (Pod default/web-1): '
        'spec.containers[0].resources.requests.cpu: invalid quantity "abc"')


def test_yaml_syntax_error_has_line():
    text = textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata: {name: a}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: [unclosed
        """)
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, source="s.yaml")
    e = info.value
    assert e.line is not None and e.line >= 7
    assert e.document == 2
    assert str(e).startswith(f"s.yaml: line {e.line}: document 2: YAML syntax error")


def test_too_large_input_is_rejected_before_parsing():
    with pytest.raises(ScenarioError, match="too large"):
        load_scenario_text("#" * (MAX_INPUT_BYTES + 1))


def test_too_large_file(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("#" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(ScenarioError, match="too large") as info:
        load_scenario_file(p)
    assert info.value.file == str(p)


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read file"):
        load_scenario_file(tmp_path / "nope.yaml")


def test_alias_bomb_is_rejected():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    bomb = "\n".join(lines)
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  annotations:\n" + textwrap.indent(
        bomb, "    ")
    with pytest.raises(ScenarioError, match="alias expansion"):
        load_scenario_text(text)


def test_recursive_alias_is_rejected():
    text = "apiVersion: v1\nkind: Node\nmetadata: &m\n  name: n\n  labels: *m\n"
    with pytest.raises(ScenarioError, match="recursive"):
        load_scenario_text(text)


def test_too_many_nodes():
    text = "\n---\n".join(textwrap.dedent(d) for d in (NODE, NODE.replace("n1", "n2"),
                                                        NODE.replace("n1", "n3")))
    with pytest.raises(ScenarioError, match=r"too many nodes \(3\); the limit is 2 "
                                            r"\(raise it with --max-nodes\)"):
        load_scenario_text(text, limits=Limits(max_nodes=2, hints=CLI_HINTS))
    assert len(load_scenario_text(text, limits=Limits(max_nodes=3)).nodes) == 3


def test_too_many_pods():
    text = "\n---\n".join(textwrap.dedent(d) for d in (NODE, pod(name="a"), pod(name="b")))
    with pytest.raises(ScenarioError, match=r"too many pods \(2\); the limit is 1 \(raise it "
                                            r"with the PLAYGROUND_MAX_PODS setting\)"):
        load_scenario_text(text, limits=Limits(max_pods=1, hints=SETTINGS_HINTS))


def test_list_item_errors_name_the_item_kind_and_name():
    e = err("""
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: ok}
        - apiVersion: v1
          kind: Node
          metadata: {name: bad}
          status: {capacity: {cpu: lots}}
    """)
    assert (e.document, e.kind, e.name, e.field) == (1, "Node", "bad", "status.capacity.cpu")
