"""KubeSchedulerConfiguration decoding, defaulting and validation."""

import textwrap

import pytest

from scheduler_core.loader.scheduler_config import ConfigError, parse_config, parse_duration


def cfg(text: str):
    import yaml

    obj = yaml.safe_load(textwrap.dedent(text)) or {}
    obj.setdefault("apiVersion", "kubescheduler.config.k8s.io/v1")
    obj.setdefault("kind", "KubeSchedulerConfiguration")
    return parse_config(obj)


def test_defaults():
    c = cfg("")
    assert len(c.profiles) == 1 and c.profiles[0].scheduler_name == "default-scheduler"
    assert c.profiles[0].plugins is None and c.profiles[0].plugin_config == {}
    assert c.profiles[0].percentage_of_nodes_to_score is None
    assert (c.parallelism, c.percentage_of_nodes_to_score) == (16, 0)
    assert (c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds) == (1, 10)
    assert c.extenders == []


def test_full_profile():
    c = cfg("""
        parallelism: 1
        percentageOfNodesToScore: 10
        podInitialBackoffSeconds: 2
        podMaxBackoffSeconds: 20
        profiles:
        - schedulerName: default-scheduler
          percentageOfNodesToScore: 50
          plugins:
            multiPoint:
              enabled: [{name: NodeResourcesFit, weight: 3}]
              disabled: [{name: TaintToleration}]
            score:
              enabled: [{name: NodeAffinity, weight: 10}]
              disabled: [{name: '*'}]
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated}
          - name: DefaultPreemption
        - schedulerName: bin-packer
    """)
    assert (c.parallelism, c.percentage_of_nodes_to_score) == (1, 10)
    assert (c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds) == (2, 20)
    p0, p1 = c.profiles
    assert p0.percentage_of_nodes_to_score == 50
    mp = p0.plugins.get("multiPoint")
    assert [(r.name, r.weight) for r in mp.enabled] == [("NodeResourcesFit", 3)]
    assert [r.name for r in mp.disabled] == ["TaintToleration"]
    sc = p0.plugins.get("score")
    assert [(r.name, r.weight) for r in sc.enabled] == [("NodeAffinity", 10)]
    assert [r.name for r in sc.disabled] == ["*"]
    assert p0.plugin_config["NodeResourcesFit"] == {"scoringStrategy": {"type": "MostAllocated"}}
    assert p0.plugin_config["DefaultPreemption"] == {}
    assert p1.scheduler_name == "bin-packer" and p1.plugins is None


def test_extenders():
    c = cfg("""
        extenders:
        - urlPrefix: http://127.0.0.1:8888/
          filterVerb: filter
          prioritizeVerb: prioritize
          weight: 5
          bindVerb: bind
          enableHTTPS: true
          httpTimeout: 1m
          nodeCacheCapable: true
          managedResources: [{name: example.com/foo, ignoredByScheduler: true}]
          ignorable: true
        - urlPrefix: http://other/
          preemptVerb: preempt
    """)
    e, f = c.extenders
    assert (e.url_prefix, e.filter_verb, e.prioritize_verb, e.bind_verb, e.weight) == (
        "http://127.0.0.1:8888/", "filter", "prioritize", "bind", 5)
    assert e.enable_https and e.node_cache_capable and e.ignorable
    assert e.http_timeout == 60.0
    assert e.managed_resources == [{"name": "example.com/foo", "ignoredByScheduler": True}]
    assert f.http_timeout == 5.0 and f.preempt_verb == "preempt"


@pytest.mark.parametrize("text,value", [("5s", 5.0), ("250ms", 0.25), ("1h2m3s", 3723.0),
                                        ("1.5s", 1.5), ("0", 0.0), ("100us", 1e-4)])
def test_duration(text, value):
    assert parse_duration(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "5", "s", "5x", "1s2"])
def test_bad_duration(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("text,field,reason", [
    ("parallelism: 0", "parallelism", "greater than zero"),
    ("percentageOfNodesToScore: -1", "percentageOfNodesToScore", "[0-100]"),
    ("profiles: [{schedulerName: a, percentageOfNodesToScore: 101}]",
     "profiles[0].percentageOfNodesToScore", "[0-100]"),
    ("podInitialBackoffSeconds: 0", "podInitialBackoffSeconds", "greater than 0"),
    ("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4", "podMaxBackoffSeconds",
     "greater than or equal to PodInitialBackoffSeconds"),
    ("profiles: [{schedulerName: a}, {schedulerName: a}]", "profiles[1].schedulerName",
     "Duplicate value"),
    ("profiles: [{schedulerName: a}, {}]", "profiles[1].schedulerName", "Required value"),
    ("profiles: [{plugins: {filter: {enabled: [{name: Nope}]}}}]",
     "profiles[0].plugins.filter.enabled[0].name", 'FilterPlugin "Nope" does not exist'),
    ("profiles: [{plugins: {multiPoint: {enabled: [{name: Nope}]}}}]",
     "profiles[0].plugins.multiPoint.enabled[0].name", 'PreFilterPlugin "Nope" does not exist'),
    ("profiles: [{plugins: {score: {enabled: [{name: NodeName}]}}}]",
     "profiles[0].plugins.score.enabled[0].name", 'plugin "NodeName" does not extend ScorePlugin'),
    ("profiles: [{plugins: {filter: {enabled: [{name: NodePorts}, {name: NodePorts}]}}}]",
     "profiles[0].plugins.filter.enabled[1].name", "already registered"),
    ("profiles: [{plugins: {filter: {enabled: [{name: EBSLimits}]}}}]",
     "profiles[0].plugins.filter.enabled[0]", "was invalid in version"),
    # Validation (one queue sort plugin) reports before the framework would (already registered).
    ("profiles: [{plugins: {queueSort: {enabled: [{name: PrioritySort}, {name: PrioritySort}]}}}]",
     "profiles[0].plugins.queueSort.Enabled", "Invalid value: 2: only one queue sort plugin can be enabled"),
    ("profiles: [{schedulerName: a}, {schedulerName: b, plugins: {queueSort: {disabled: [{name: '*'}]}}}]",
     "profiles[1].plugins.queueSort", "must be the same for all profiles"),
    ("profiles: [{pluginConfig: [{name: X, args: {}}, {name: X, args: {}}]}]",
     "profiles[0].pluginConfig[1]", "Duplicate value"),
    ("profiles: [{pluginConfig: [{name: X, args: [1]}]}]", "profiles[0].pluginConfig[0].args",
     "expected an object"),
    ("profiles: [{plugins: {bogus: {}}}]", "profiles[0].plugins.bogus", "unknown field"),
    ("bogus: 1", "bogus", "unknown field"),
    ("extenders: [{urlPrefix: x, prioritizeVerb: p}]", "extenders[0].weight",
     "must have a positive weight"),
    ("extenders: [{urlPrefix: x, bindVerb: b}, {urlPrefix: y, bindVerb: b}]", "extenders",
     "only one extender can implement bind"),
    ("extenders: [{urlPrefix: x, managedResources: [{name: cpu}]}]",
     "extenders[0].managedResources[0].name", "invalid extended resource name"),
    ("extenders: [{urlPrefix: x, managedResources: [{name: a.io/x}]}, "
     "{urlPrefix: y, managedResources: [{name: a.io/x}]}]",
     "extenders[1].managedResources[0].name", "duplicate extender managed resource name"),
    ("extenders: [{urlPrefix: x, httpTimeout: soon}]", "extenders[0].httpTimeout",
     "invalid duration"),
])
def test_validation(text, field, reason):
    with pytest.raises(ConfigError) as info:
        cfg(text)
    assert info.value.field == field
    assert reason in info.value.reason


def test_config_error_becomes_scenario_error():
    from helpers import load

    from scheduler_core.api.errors import ScenarioError

    with pytest.raises(ScenarioError) as info:
        load("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
             "parallelism: 0")
    e = info.value
    assert (e.document, e.kind, e.field) == (1, "KubeSchedulerConfiguration", "parallelism")
