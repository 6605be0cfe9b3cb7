"""Strict decoding like `kubectl apply --validate=strict`, "not simulated" warnings, Limits."""

import textwrap

import pytest
from helpers import NODE, load, pod

from scheduler_core.__main__ import main
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import CLI_LIMITS, DEFAULT_LIMITS, Limits


def err(*docs: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(*docs)
    return info.value


@pytest.mark.parametrize("docs,where,suggestion", [
    ([NODE, pod("nodeSelectr: {disk: ssd}\n")], (2, "Pod", "default/p", "spec.nodeSelectr"),
     "nodeSelector"),
    ([NODE, pod().replace("{name: app, image: pause}",
                          "{name: app, image: pause, resources: {request: {cpu: '1'}}}")],
     (2, "Pod", "default/p", "spec.containers[0].resources.request"), "requests"),
    (["apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: hi}\n"
      "value: 5\nglobalDefualt: true"], (1, "PriorityClass", "hi", "globalDefualt"),
     "globalDefault"),
    (["apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles: [{schedulerNmae: x}]"], (1, "KubeSchedulerConfiguration", None,
                                          "profiles[0].schedulerNmae"), "schedulerName"),
])
def test_misspelled_fields_are_refused_with_did_you_mean(docs, where, suggestion):
    e = err(*docs)
    assert (e.document, e.kind, e.name, e.field) == where
    assert f'did you mean "{suggestion}"?' in e.reason


def test_unknown_field_far_from_any_gets_no_suggestion():
    e = err(NODE, pod("zzzzzz: 1\n"))
    assert e.field == "spec.zzzzzz" and e.reason == 'unknown field "zzzzzz"'


def test_duplicate_key_names_line_object_and_field():
    e = err(NODE, pod().replace("{name: app, image: pause}",
                                "{name: app, image: pause, resources: {requests: {cpu: '1', "
                                "cpu: '2'}}}"))
    assert (e.document, e.kind, e.name) == (2, "Pod", "default/p")
    assert e.field == "spec.containers[0].resources.requests.cpu"
    assert e.line == 13 and 'duplicate key "cpu"' in e.reason


def test_merge_keys_overriding_are_not_duplicates():
    sc = load(textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata:
          name: n1
          labels: &base {a: '1', b: '2'}
          annotations:
            <<: *base
            a: '3'
        """))
    assert sc.nodes[0].annotations == {"a": "3", "b": "2"}


def test_not_simulated_fields_are_warned_once_per_kind_and_field():
    probe = "{name: app, image: pause, livenessProbe: {exec: {command: [true]}}, env: []}"
    sc = load(NODE, pod(name="a").replace("{name: app, image: pause}", probe),
              pod(name="b", meta="uid: x").replace("{name: app, image: pause}", probe),
              pod(name="c").replace("{name: app, image: pause}", probe))
    got = {(w.kind, w.field, w.document, w.name, w.more) for w in sc.warnings}
    assert got == {("Pod", "spec.containers[0].livenessProbe", 2, "default/a", 2),
                   ("Pod", "metadata.uid", 3, "default/b", 0)}  # empty env is not reported
    assert str(sc.warnings[0]) == ("scenario.yaml: document 2 (Pod default/a): "
                                   "spec.containers[0].livenessProbe: not simulated: accepted "
                                   "and ignored (also in 2 more Pods)")


def test_warnings_do_not_change_the_scenario():
    plain = load(NODE, pod())
    noisy = load(NODE + "  nodeInfo: {kubeletVersion: v1.35.0}\n",
                 pod(meta="resourceVersion: '7'") + "status: {phase: Pending}\n")
    assert noisy == plain and not plain.warnings and len(noisy.warnings) == 3


def test_cli_prints_warnings_on_stderr(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(NODE + "---\n" + pod("dnsPolicy: ClusterFirst\n"))
    assert main(["simulate", str(f)]) == 0
    err_text = capsys.readouterr().err
    assert err_text == (f"warning: {f}: document 2 (Pod default/p): spec.dnsPolicy: not "
                        "simulated: accepted and ignored\n")


def test_limits_defaults():
    assert (DEFAULT_LIMITS.max_nodes, DEFAULT_LIMITS.max_pods) == (5000, 20000)
    assert (CLI_LIMITS.max_nodes, CLI_LIMITS.max_pods, CLI_LIMITS.max_bytes) == (
        65_000, 150_000, 256 * 1024 * 1024)
    assert Limits(max_nodes=1).refusal("max_nodes", "too many nodes (2)") == (
        "too many nodes (2); the limit is 1 (raise it with Limits.max_nodes)")


def test_cli_limit_flags(tmp_path, capsys):
    f = tmp_path / "s.yaml"
    f.write_text(NODE + "---\n" + NODE.replace("n1", "n2"))
    assert main(["simulate", str(f), "--max-nodes", "1"]) == 2
    assert "too many nodes (2); the limit is 1 (raise it with --max-nodes)" in \
        capsys.readouterr().err
    assert main(["simulate", str(f), "--max-nodes", "2", "--max-bytes", "10"]) == 2
    assert "raise it with --max-bytes" in capsys.readouterr().err
    assert main(["simulate", str(f), "--max-nodes", "2"]) == 0


@pytest.mark.parametrize("toleration,ok", [
    ("{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 5}", True),
    ("{key: a, operator: Exists, tolerationSeconds: 5}", True),  # recorded leniency
    ("{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}", False),
])
def test_toleration_seconds_needs_no_execute(toleration, ok):
    docs = (NODE, pod(f"tolerations: [{toleration}]\n"))
    if ok:
        load(*docs)
    else:
        e = err(*docs)
        assert e.field == "spec.tolerations[0].effect" and "must be 'NoExecute'" in e.reason


@pytest.mark.parametrize("url,ok", [
    ("http://127.0.0.1:8888/", True), ("https://ext.example/x", True),
    ("file:///etc", False), ("localhost:8888", False), ("http://", False),
    ("http://u:p@x/", False), ("http://x/?a=1", False),
])
def test_extender_url_prefix(url, ok):
    doc = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
           f"extenders: [{{urlPrefix: '{url}', filterVerb: f}}]")
    if ok:
        load(doc)
    else:
        assert err(doc).field == "extenders[0].urlPrefix"


@pytest.mark.parametrize("timeout,ok", [("1m", True), ("250ms", True), ("61s", False),
                                        ("100000h", False), ("-1s", False)])
def test_extender_http_timeout_is_capped(timeout, ok):
    doc = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
           f"extenders: [{{urlPrefix: 'http://x/', filterVerb: f, httpTimeout: {timeout}}}]")
    if ok:
        load(doc)
    else:
        assert err(doc).field == "extenders[0].httpTimeout"


def test_fields_the_workload_controllers_read_are_not_reported_as_not_simulated():
    """replicas, ordinals and a Job's parallelism decide how many pods exist: simulated."""
    template = ("  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n"
                "    spec: {containers: [{name: c, image: i}]}\n")
    sc = load(NODE,
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 2\n"
              "  strategy: {type: Recreate}\n" + template,
              "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  replicas: 1\n"
              "  ordinals: {start: 3}\n" + template.replace("app: w", "app: s"),
              "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 2\n"
              "  completions: 4\n" + template.replace("app: w", "app: j")
              .replace("selector: {matchLabels: {app: j}}", "manualSelector: false"))
    fields = {(w.kind, w.field) for w in sc.warnings}
    assert ("Deployment", "spec.strategy") in fields  # really not simulated
    assert ("Job", "spec.manualSelector") in fields
    assert not {f for f in fields if f[1] in ("spec.replicas", "spec.ordinals", "spec.parallelism",
                                              "spec.completions")}
    assert len([p for p in sc.pods if p.name.startswith("d-")]) == 2
    assert [p.name for p in sc.pods if p.name.startswith("s-")] == ["s-3"]


def test_a_misspelled_ordinals_field_is_refused():
    e = err(NODE, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n"
                  "  replicas: 1\n  ordinals: {strat: 3}\n  selector: {matchLabels: {app: s}}\n"
                  "  template:\n    metadata: {labels: {app: s}}\n"
                  "    spec: {containers: [{name: c, image: i}]}\n")
    assert e.field == "spec.ordinals.strat" and 'did you mean "start"?' in e.reason


def test_plural_of_a_kind_ending_in_s():
    pcs = "".join(f"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: "
                  f"{{name: p{i}, uid: u{i}}}\nvalue: {i}\n" for i in range(3))
    sc = load(NODE, pcs.lstrip("-\n"))
    assert str(sc.warnings[0]).endswith("(also in 2 more PriorityClasses)")


def test_what_the_controllers_write_is_not_warned_about():
    """Their pods' ownerReferences carry blockOwnerDeletion; the user never wrote it."""
    sc = load(NODE, "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n"
                    "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
                    "    spec: {containers: [{name: c, image: i}]}\n")
    assert sc.pods and sc.warnings == []
    written = load(NODE, pod(meta="ownerReferences: [{apiVersion: v1, kind: Node, name: n1, uid: u, "
                                  "blockOwnerDeletion: true}]"))
    assert [w.field for w in written.warnings] == ["metadata.ownerReferences[0].blockOwnerDeletion"]
