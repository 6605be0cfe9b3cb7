"""The DeschedulerPolicy loader: what it accepts, and located refusals for what it does not."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import load_scenario_text
from tests.engine.descheduler.helpers import node, policy, profile, text

LNU = {"thresholds": {"cpu": 20}, "targetThresholds": {"cpu": 50}}


def _load(*docs):
    return load_scenario_text(text([node("a"), *docs]), source="s.yaml")


def _error(*docs) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        _load(*docs)
    return info.value


def test_a_policy_loads_with_defaults_and_its_interval():
    sc = _load(policy([profile("LowNodeUtilization", "balance", LNU)], deschedulingInterval="1h30m",
                      maxNoOfPodsToEvictPerNode=2))
    pol = sc.descheduler_policy
    assert pol.descheduling_interval == 5400 and pol.max_no_of_pods_to_evict_per_node == 2
    prof = pol.profiles[0]
    assert prof.plugins.balance.enabled == ("LowNodeUtilization",)
    assert prof.args_for("LowNodeUtilization").target_thresholds == {"cpu": 50.0}
    assert prof.args_for("DefaultEvictor").evict_local_storage_pods is False  # defaulted


def test_scenarios_without_a_policy_have_none():
    assert _load().descheduler_policy is None


@pytest.mark.parametrize("doc,field,reason", [
    (policy([profile("LowNodeUtilization", "balance", {"thresholds": {"cpu": 60}, "targetThresholds": {"cpu": 50}})]),
     "profiles[0].pluginConfig[0].args.thresholds.cpu", "thresholds' cpu percentage is greater than targetThresholds'"),
    (policy([profile("LowNodeUtilization", "balance", {"thresholds": {"cpu": 20}, "targetThresholds": {"memory": 50}})]),
     "profiles[0].pluginConfig[0].args", "thresholds and targetThresholds configured different resources"),
    (policy([profile("LowNodeUtilization", "balance", {"thresholds": {"cpu": 120}, "targetThresholds": {"cpu": 150}})]),
     "profiles[0].pluginConfig[0].args.thresholds.cpu", "thresholds config is not valid: cpu threshold not in [0, 100] range"),
    (policy([profile("LowNodeUtilization", "balance")]),
     "profiles[0].plugins.balance.enabled[0]",
     '"LowNodeUtilization" has no pluginConfig and its default args are not valid: thresholds config is not valid: '
     "no resource threshold is configured"),
    (policy([profile("LowNodeUtilization", "deschedule", LNU)]),
     "profiles[0].plugins.deschedule.enabled[0]", "does not implement the deschedule extension point"),
    (policy([profile("RemovePodsHavingTooManyRestarts", "deschedule")]),
     "profiles[0].plugins.deschedule.enabled[0]", "never restart"),
    (policy([profile("LowNodeUtilization", "balance", {**LNU, "bogus": 1})]),
     "profiles[0].pluginConfig[0].args.bogus", "unknown field"),
    (policy([profile("LowNodeUtilization", "balance", LNU)], maxNoOfPodsToEvictTotal=-1),
     "maxNoOfPodsToEvictTotal", "must be a non-negative integer"),
    (policy([profile("LowNodeUtilization", "balance", LNU)], deschedulingInterval="soon"),
     "deschedulingInterval", "expected a duration"),
    (policy([profile("LowNodeUtilization", "balance", LNU, name="x"), profile("LowNodeUtilization", "balance", LNU, name="x")]),
     "profiles[1].name", 'Duplicate value: "x"'),
    (policy([profile("RemovePodsViolatingNodeTaints", "deschedule", evictor={"priorityThreshold": {"name": "nope"}})]),
     "profiles[0].pluginConfig[0].args.priorityThreshold.name", 'PriorityClass "nope" not found'),
    ({**policy([profile("LowNodeUtilization", "balance", LNU)]), "apiVersion": "descheduler/v1alpha1"},
     "apiVersion", 'expected "descheduler/v1alpha2"'),
])
def test_refusals_name_the_document_and_field(doc, field, reason):
    error = _error(doc)
    assert error.kind == "DeschedulerPolicy" and error.field == field
    assert reason in error.reason
    if field != "profiles[0].pluginConfig[0].args.priorityThreshold.name":
        assert error.document == 2


def test_only_one_policy():
    doc = policy([profile("LowNodeUtilization", "balance", LNU)])
    error = _error(doc, doc)
    assert error.document == 3 and "only one DeschedulerPolicy" in error.reason


def test_the_run_action_needs_a_policy():
    from scheduler_core.api.errors import ActionError
    from scheduler_core.simulation import Simulation

    sim = Simulation(_load(), record_events=True)
    with pytest.raises(ActionError, match="no DeschedulerPolicy"):
        sim.apply_manifest_action({"action": "runDescheduler"})
