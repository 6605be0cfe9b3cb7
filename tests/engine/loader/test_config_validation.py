"""KubeSchedulerConfiguration validation parity with upstream v1.35 (apis/config/validation:
validation.go, validation_pluginargs.go; component-base's client connection and leader election
checks): each value upstream refuses is refused with upstream's words at upstream's field path,
every validation error at once in upstream's aggregated form, and what upstream accepts loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from scheduler_core.loader.scheduler_config import ConfigError, parse_config

ROOT = Path(__file__).resolve().parents[3]
PC = "profiles[0].pluginConfig[0].args"


def cfg(text: str):
    return parse_config({"apiVersion": "kubescheduler.config.k8s.io/v1",
                         "kind": "KubeSchedulerConfiguration", **(yaml.safe_load(text) or {})})


def args(plugin: str, value: str) -> str:
    return f"profiles: [{{pluginConfig: [{{name: {plugin}, args: {value}}}]}}]"


CASES = [
    # component-base and the scheduler's leader election rule
    ("clientConnection: {burst: -1}", "clientConnection.burst: Invalid value: -1: must be non-negative"),
    ("leaderElection: {retryPeriod: 0s}", 'leaderElection.retryPeriod: Invalid value: "0s": must be greater than zero'),
    ("leaderElection: {leaseDuration: 5s}",
     'leaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`'),
    ("leaderElection: {resourceLock: endpoints}",
     'leaderElection.resourceLock: Invalid value: "endpoints": resourceLock value must be "leases"'),
    # top level
    ("parallelism: 0", "parallelism: Invalid value: 0: should be an integer value greater than zero"),
    ("percentageOfNodesToScore: 101", "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    ("podInitialBackoffSeconds: 0", "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
    ("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4",
     "podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds"),
    # profiles
    ("profiles: [{schedulerName: a}, {}]", "profiles[1].schedulerName: Required value"),
    ("profiles: [{schedulerName: a, percentageOfNodesToScore: -1}]",
     "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"),
    ("profiles: [{plugins: {queueSort: {enabled: [{name: PrioritySort}, {name: PrioritySort}]}}}]",
     "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be enabled"),
    ("profiles: [{schedulerName: a, plugins: {queueSort: {enabled: [{name: PrioritySort}]}}}, {schedulerName: b}]",
     "profiles[1].plugins.queueSort: Invalid value: must be the same for all profiles"),
    ("profiles: [{schedulerName: a, plugins: {queueSort: {enabled: [{name: PrioritySort}]}}}, "
     "{schedulerName: b, plugins: {queueSort: {enabled: [{name: PrioritySort}]}}, "
     "pluginConfig: [{name: PrioritySort, args: {x: 1}}]}]",
     "profiles[1].pluginConfig.args: Invalid value: queueSort must be the same for all profiles"),
    ("profiles: [{plugins: {filter: {enabled: [{name: EBSLimits}]}}}]",
     'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version '
     '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'),
    ("profiles: [{pluginConfig: [{name: ImageLocality}, {name: ImageLocality}]}]",
     'profiles[0].pluginConfig[1]: Duplicate value: "ImageLocality"'),
    # extenders
    ("extenders: [{urlPrefix: 'http://127.0.0.1:1/', prioritizeVerb: p}]",
     "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"),
    ("extenders: [{urlPrefix: 'http://127.0.0.1:1/', prioritizeVerb: p, weight: -2}]",
     "extenders[0].weight: Invalid value: -2: must have a positive weight applied to it"),
    ("extenders: [{urlPrefix: 'http://127.0.0.1:1/', bindVerb: b}, {urlPrefix: 'http://127.0.0.1:2/', bindVerb: b}]",
     'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind'),
    ("extenders: [{urlPrefix: 'http://127.0.0.1:1/', managedResources: [{name: cpu}]}]",
     'extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name'),
    # pluginConfig args, plugin by plugin
    (args("DefaultPreemption", "{minCandidateNodesPercentage: 101}"),
     f"{PC}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    (args("DefaultPreemption", "{minCandidateNodesAbsolute: -1}"),
     f"{PC}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    (args("DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"),
     f"[{PC}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
     f"minCandidateNodesAbsolute, {PC}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the "
     "same time as minCandidateNodesPercentage]"),
    (args("InterPodAffinity", "{hardPodAffinityWeight: 101}"),
     f"{PC}.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
    (args("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                          "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Near}]}]}}}"),
     f'{PC}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]'
     '.operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'),
    (args("NodeResourcesBalancedAllocation", "{resources: [{name: cpu, weight: 2}, {name: cpu}]}"),
     f'[{PC}.resources[0].weight: Invalid value: 2: must be 1, {PC}.resources[1].name: Duplicate value: "cpu"]'),
    (args("NodeResourcesFit", "{scoringStrategy: {type: Cheapest}}"),
     f'{PC}.scoringStrategy.type: Unsupported value: "Cheapest": supported values: "LeastAllocated", '
     '"MostAllocated", "RequestedToCapacityRatio"'),
    (args("NodeResourcesFit", "{scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 101}]}}"),
     f"{PC}.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"),
    (args("NodeResourcesFit", "{ignoredResourceGroups: [example.com/x]}"),
     f"{PC}.ignoredResourceGroups[0]: Invalid value: \"example.com/x\": resource group name can't contain '/'"),
    (args("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
                              "{shape: []}}}"),
     f"{PC}.scoringStrategy.shape: Required value: at least one point must be specified"),
    (args("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
                              "{shape: [{utilization: 50, score: 5}, {utilization: 10, score: 11}]}}}"),
     f"[{PC}.scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order, "
     f"{PC}.scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]]"),
    (args("PodTopologySpread", "{defaultingType: Sometimes}"),
     f'{PC}.defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"'),
    (args("PodTopologySpread", "{defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]}"),
     f'{PC}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: '', "
                               "whenUnsatisfiable: Maybe}]}"),
     f"[{PC}.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), "
     f"{PC}.defaultConstraints[0].topologyKey: Required value: can not be empty, "
     f'{PC}.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
     '"DoNotSchedule", "ScheduleAnyway"]'),
    (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                               "whenUnsatisfiable: DoNotSchedule, labelSelector: {}}, {maxSkew: 2, topologyKey: zone, "
                               "whenUnsatisfiable: DoNotSchedule}]}"),
     f"[{PC}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
     f'deduced for each pod, {PC}.defaultConstraints[1]: Duplicate value: "{{zone, DoNotSchedule}}"]'),
    (args("VolumeBinding", "{bindTimeoutSeconds: -1}"),
     f"{PC}.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"),
    (args("InterPodAffinity", "{kind: NodeAffinityArgs}"),
     f'{PC}: Invalid value: "NodeAffinityArgs": has to match plugin args'),
    # every validation error at once, in upstream's order, each message once
    ("parallelism: -1\npercentageOfNodesToScore: 200\npodInitialBackoffSeconds: -1\n"
     "profiles: [{schedulerName: a}, {schedulerName: a}]",
     "[parallelism: Invalid value: -1: should be an integer value greater than zero, "
     'profiles[1].schedulerName: Duplicate value: "a" (also profiles[0].schedulerName), '
     "percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100], "
     "podInitialBackoffSeconds: Invalid value: -1: must be greater than 0]"),
]


@pytest.mark.parametrize(("text", "message"), CASES, ids=[m[:60] for _, m in CASES])
def test_upstream_refusals_with_upstream_words(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        cfg(text)
    assert str(info.value) == message


@pytest.mark.parametrize("text", [
    # Upstream validates no Score plugin weight: 0 is defaulted to 1, a negative weight is
    # accepted (framework.getScoreWeights only guards the int64 total, which int32 weights of
    # the in-tree plugins cannot overflow).
    "profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: -3}]}}}]",
    "profiles: [{plugins: {multiPoint: {enabled: [{name: ImageLocality, weight: 2147483647}]}}}]",
    "leaderElection: {leaderElect: false, resourceLock: endpoints}",
    args("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 0}]}}"),
    args("InterPodAffinity", "{apiVersion: kubescheduler.config.k8s.io/v1, kind: InterPodAffinityArgs, "
                             "hardPodAffinityWeight: 0}"),
    args("ImageLocality", "{anything: 1}"),  # no args type: kept as given, as runtime.Unknown
])
def test_what_upstream_accepts_loads(text: str) -> None:
    cfg(text)


def test_a_negative_score_weight_scores_as_upstream_would() -> None:
    """Accepted, and applied: the weighted sum counts the plugin negatively."""
    from scheduler_core.framework.plugins.registry import get_registry
    from scheduler_core.framework.runtime.framework import Framework

    prof = cfg("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: -3}]}}}]").profiles[0]
    assert Framework(prof, get_registry()).score_weights["ImageLocality"] == -3


def test_args_are_decoded_strictly_before_validation() -> None:
    with pytest.raises(ConfigError) as info:
        cfg("parallelism: 0\n" + args("InterPodAffinity", "{hardPodAfinityWeight: 2}"))
    assert str(info.value) == (f'{PC}.hardPodAfinityWeight: unknown field "hardPodAfinityWeight"; '
                               'did you mean "hardPodAffinityWeight"?')


def test_framework_errors_come_after_validation() -> None:
    with pytest.raises(ConfigError) as info:
        cfg("profiles: [{plugins: {bind: {disabled: [{name: '*'}]}}}]")
    assert str(info.value) == ("profiles[0]: creating profile for scheduler name default-scheduler: at least "
                               "one bind plugin is needed for profile with scheduler name 'default-scheduler'")
    with pytest.raises(ConfigError) as info:  # validation first, even with an unknown plugin
        cfg("parallelism: 0\nprofiles: [{plugins: {filter: {enabled: [{name: Nope}]}}}]")
    assert info.value.field == "parallelism"


CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def test_a_scenario_and_the_command_line_refuse_bad_plugin_args_located(tmp_path: Path) -> None:
    text = CONFIG + args("InterPodAffinity", "{hardPodAffinityWeight: 101}")
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, source="s.yaml")
    assert (info.value.document, info.value.kind, info.value.field) == (1, "KubeSchedulerConfiguration",
                                                                       f"{PC}.hardPodAffinityWeight")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    result = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"error: {path}: document 1 (KubeSchedulerConfiguration): {PC}."
                                     "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]")


@pytest.mark.parametrize(("text", "field"), [
    (args("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, wieght: 2}]}}"),
     f"{PC}.scoringStrategy.resources[0].wieght"),
    (args("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                               "whenUnsatisfiable: DoNotSchedule, minDomain: 2}]}"),
     f"{PC}.defaultConstraints[0].minDomain"),
    (args("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                          "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In, value: [x]}]}]}}}"),
     f"{PC}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
     ".matchExpressions[0].value"),
])
def test_nested_args_fields_are_strict_too(text: str, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        cfg(text)
    assert info.value.field == field and info.value.reason.startswith("unknown field")


def test_score_weights_whose_total_could_overflow_are_refused_by_the_framework() -> None:
    """getScoreWeights: unreachable with int32 weights from a file (the decoder refuses larger
    ones), checked as upstream checks it for a profile built otherwise."""
    from scheduler_core.config.types import PluginRef, Plugins, PluginSet, Profile
    from scheduler_core.framework.plugins.registry import get_registry
    from scheduler_core.framework.runtime.framework import Framework, FrameworkError

    huge = Profile(plugins=Plugins({"score": PluginSet(enabled=[PluginRef("ImageLocality", 1 << 60)])}))
    with pytest.raises(FrameworkError, match="^total score of Score plugins could overflow$"):
        Framework(huge, get_registry())
    with pytest.raises(ConfigError, match="out of range for int32"):
        cfg("profiles: [{plugins: {score: {enabled: [{name: ImageLocality, weight: 2147483648}]}}}]")
