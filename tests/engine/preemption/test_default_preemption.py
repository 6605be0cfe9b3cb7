"""DefaultPreemption + preemption.Evaluator against upstream v1.35 semantics.

Ported in spirit from default_preemption_test.go (TestPostFilter, TestDryRunPreemption,
TestSelectBestCandidate, TestPodEligibleToPreemptOthers, TestCalculateNumCandidates,
TestSelectVictimsOnNode-style reprieve cases) and preemption_test.go (pickOneNodeForPreemption,
filterPodsWithPDBViolation), plus the conformance cases v19-v22.
"""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Pod
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.plugins.defaultpreemption import DefaultPreemption
from scheduler_core.framework.plugins.defaultpreemption.default_preemption import (
    filter_pods_with_pdb_violation,
    pod_terminating_by_preemption,
)
from scheduler_core.framework.preemption import Victims, pick_one_node_for_preemption
from scheduler_core.framework.preemption.gosort import go_sort_slice
from scheduler_core.framework.preemption.preemption import (
    CRITERION_FIRST,
    CRITERION_HIGHEST_PRIORITY,
    CRITERION_NUM_VICTIMS,
    CRITERION_ONLY_CANDIDATE,
    CRITERION_PDB_VIOLATIONS,
    CRITERION_START_TIME,
    CRITERION_SUM_PRIORITIES,
    aggregate_errors,
    fit_error_message,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import PodInfo, QueueingHint
from tests.engine.preemption._fakes import FakeExtender, FakeHandle, FixedRng, mk_node, mk_pdb, mk_pod


def keys(pods: list[Pod]) -> list[str]:
    return [p.key for p in pods]


# ---------------------------------------------------------------------------------------------
# Conformance-shaped scenarios
# ---------------------------------------------------------------------------------------------


def test_v19_lowest_priority_victims_and_reprieve():
    l1 = mk_pod("l1", 1, 10, "n1")
    l2 = mk_pod("l2", 2, 20, "n1")
    m1 = mk_pod("m1", 3, 100, "n2")
    boss = mk_pod("boss", 2, 1000)
    h = FakeHandle([mk_node("n1"), mk_node("n2")], [l1, l2, m1, boss])
    result, status = h.schedule_and_preempt(boss)
    assert status is None
    assert result.nominated_node_name == "n1"
    assert h.preempted() == ["default/l1"]  # l2 reprieved: 2 + 2 cpu still fit
    ev = h.last_preemption_event()
    assert ev["chosen"] == "n1" and ev["why"] == CRITERION_HIGHEST_PRIORITY
    assert {c["node"]: c["victims"] for c in ev["candidates"]} == {"n1": ["default/l1"], "n2": ["default/m1"]}


def test_v20_pdb_violations_decide_before_priority():
    g1 = mk_pod("guarded-1", 3, 10, "p1", labels={"app": "guarded"})
    g2 = mk_pod("guarded-2", "0.5", 10, "p2", labels={"app": "guarded"})
    f1 = mk_pod("free-1", 3, 50, "p2", labels={"app": "free"})
    urgent = mk_pod("urgent", 3, 1000)
    pdb = mk_pdb("guarded-pdb", {"app": "guarded"}, allowed=0)
    h = FakeHandle([mk_node("p1"), mk_node("p2")], [g1, g2, f1, urgent], [pdb])
    result, status = h.schedule_and_preempt(urgent)
    assert status is None and result.nominated_node_name == "p2"
    assert h.preempted() == ["default/free-1"]  # guarded-2 (PDB-violating) reprieved first
    ev = h.last_preemption_event()
    assert ev["why"] == CRITERION_PDB_VIOLATIONS
    # PDB-respecting candidates are listed first.
    assert [(c["node"], c["num_pdb_violations"]) for c in ev["candidates"]] == [("p2", 0), ("p1", 1)]


def test_v21_preemption_policy_never():
    occ = mk_pod("occupant-1", "1.5", 10, "k1")
    occ2 = mk_pod("occupant-2", "1.5", 2000, "k2")
    polite = mk_pod("polite", 1, 1000, preemption_policy="Never")
    h = FakeHandle([mk_node("k1", 2), mk_node("k2", 2)], [occ, occ2, polite])
    result, status = h.schedule_and_preempt(polite)
    assert result is None
    assert status.code == Code.UNSCHEDULABLE
    assert status.message() == "preemption: not eligible due to preemptionPolicy=Never."
    assert h.preempted() == []


def test_v21_not_helpful_when_every_node_unresolvable():
    occ = mk_pod("occupant-1", "1.5", 10, "k1")
    pod = mk_pod("wrong-pool", 1, 2000)
    h = FakeHandle([mk_node("k1", 2), mk_node("k2", 2)], [occ, pod])
    unresolvable = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity/selector")
    result, status = h.schedule_and_preempt(pod, statuses={"k1": unresolvable, "k2": unresolvable})
    assert result is not None and result.nominated_node_name == ""
    assert status.code == Code.UNSCHEDULABLE
    assert status.message() == (
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    assert h.rng.calls == []  # no potential node: no offset drawn


def test_v21_no_victims_message():
    o1 = mk_pod("occupant-1", "1.5", 10, "k1")
    o2 = mk_pod("occupant-2", "1.5", 2000, "k2")
    pod = mk_pod("no-victims", 1, 5)
    h = FakeHandle([mk_node("k1", 2), mk_node("k2", 2)], [o1, o2, pod])
    result, status = h.schedule_and_preempt(pod)
    assert result.nominated_node_name == ""
    assert status.message() == (
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")


def test_v22_same_priority_cannot_preempt_mixed_reasons():
    # m1, m2 already hold a prod pod (same priority as the preemptor) and a batch pod;
    # m3 is smaller than the request: Fit says UnschedulableAndUnresolvable there.
    pods = [
        mk_pod("batch-m1-b", "1.5", 1, "m1"), mk_pod("prod-a", "2.5", 500, "m1"),
        mk_pod("batch-m2-b", "1.5", 1, "m2"), mk_pod("prod-b", "2.5", 500, "m2"),
        mk_pod("batch-m3-b", "1.5", 1, "m3"),
    ]
    prod_c = mk_pod("prod-c", "2.5", 500)
    h = FakeHandle([mk_node("m1"), mk_node("m2"), mk_node("m3", 2)], pods + [prod_c])
    result, status = h.schedule_and_preempt(prod_c)
    assert result.nominated_node_name == ""
    assert status.message() == ("preemption: 0/3 nodes are available: 1 Preemption is not helpful for "
                                "scheduling, 2 Insufficient cpu.")
    assert h.rng.calls == [2]  # one draw over the 2 potential nodes


def test_v22_first_preemptor_takes_one_batch_pod():
    pods = [
        mk_pod("batch-m1", "1.8", 1, "m1"), mk_pod("batch-m1-b", "1.5", 1, "m1"),
        mk_pod("batch-m2", "1.8", 1, "m2"), mk_pod("batch-m2-b", "1.5", 1, "m2"),
        mk_pod("batch-m3-b", "1.5", 1, "m3"),
    ]
    prod_a = mk_pod("prod-a", "2.5", 500)
    for offset, want in ((0, "m1"), (1, "m2")):
        h = FakeHandle([mk_node("m1"), mk_node("m2"), mk_node("m3", 2)], pods + [prod_a], offset=offset)
        result, status = h.schedule_and_preempt(prod_a)
        assert status is None
        assert result.nominated_node_name == want
        assert h.preempted() == [f"default/batch-{want}"]
        # equal on every criterion (same start time 0): the first candidate in dry-run order wins
        assert h.last_preemption_event()["why"] == CRITERION_FIRST


# ---------------------------------------------------------------------------------------------
# pickOneNodeForPreemption, criterion by criterion
# ---------------------------------------------------------------------------------------------


def V(*prio_start: tuple[int, float | None], pdb: int = 0) -> Victims:
    pods = [mk_pod(f"v{i}-{p}", 1, p, "x", start_time=t) for i, (p, t) in enumerate(prio_start)]
    return Victims(pods, pdb)


NOW = lambda: 1000.0  # noqa: E731


@pytest.mark.parametrize(
    "victims, want, why",
    [
        ({"a": V((10, 0), pdb=1), "b": V((100, 0))}, "b", CRITERION_PDB_VIOLATIONS),
        ({"a": V((100, 0)), "b": V((10, 0), (5, 0))}, "b", CRITERION_HIGHEST_PRIORITY),
        ({"a": V((10, 0), (5, 0)), "b": V((10, 0), (3, 0))}, "b", CRITERION_SUM_PRIORITIES),
        # sums are shifted by 2^31 per pod: two pods (10 and -2^31) tie with one pod of 10
        ({"a": V((10, 0), (-(2 ** 31), 0)), "b": V((10, 0))}, "b", CRITERION_NUM_VICTIMS),
        # plain fewer victims wins on the shifted sum already
        ({"a": V((10, 0), (0, 0)), "b": V((10, 0))}, "b", CRITERION_SUM_PRIORITIES),
        ({"a": V((10, 100.0)), "b": V((10, 200.0))}, "b", CRITERION_START_TIME),
        # only the highest-priority victims' earliest start counts
        ({"a": V((10, 300.0), (5, 1.0)), "b": V((10, 200.0), (5, 500.0))}, "a", CRITERION_START_TIME),
        ({"a": V((10, 100.0), (10, 400.0)), "b": V((10, 150.0), (10, 150.0))}, "b", CRITERION_START_TIME),
        ({"a": V((10, 5.0)), "b": V((10, 5.0))}, "a", CRITERION_FIRST),
        ({"b": V((10, 5.0)), "a": V((10, 5.0))}, "b", CRITERION_FIRST),
        # ties carry over: three nodes, two tie on PDB, then priority decides between those
        ({"a": V((1, 0), pdb=2), "b": V((50, 0), pdb=1), "c": V((40, 0), pdb=1)}, "c", CRITERION_HIGHEST_PRIORITY),
    ],
)
def test_pick_one_node_criteria(victims, want, why):
    assert pick_one_node_for_preemption(victims, None, NOW) == (want, why)


def test_pick_one_node_custom_score_funcs():
    victims = {"a": V((1, 0)), "b": V((1, 0)), "c": V((1, 0))}
    funcs = [lambda n: {"a": 1, "b": 5, "c": 5}[n], lambda n: {"a": 9, "b": 1, "c": 2}[n]]
    assert pick_one_node_for_preemption(victims, funcs, NOW) == ("c", "score function 1")
    assert pick_one_node_for_preemption({}, None, NOW) == ("", "")


def test_unset_start_time_is_now():
    # a pod without status.startTime started "now": later than any recorded start
    victims = {"a": V((10, None)), "b": V((10, 999.0))}
    assert pick_one_node_for_preemption(victims, None, NOW) == ("a", CRITERION_START_TIME)


# ---------------------------------------------------------------------------------------------
# SelectVictimsOnNode: reprieve order, PDBs
# ---------------------------------------------------------------------------------------------


def _select(h: FakeHandle, pod: Pod, node: str):
    from scheduler_core.framework.cycle_state import CycleState

    state = CycleState()
    for pl in h.filter_plugins:
        pl.pre_filter(state, pod, h.snapshot.list())
    plugin = DefaultPreemption(None, h)
    ni = h.snapshot.get(node).snapshot()
    pods, nviol, st = plugin.select_victims_on_node(state, pod, ni, h.cluster.pdbs())
    return keys(pods), nviol, st


def test_reprieve_most_important_first():
    # 4 cpu node, 3 victims; preemptor needs 2. Highest priority reprieved first.
    pods = [mk_pod("a", 1, 10, "n"), mk_pod("b", 1, 30, "n"), mk_pod("c", 2, 20, "n")]
    pre = mk_pod("p", 2, 100)
    h = FakeHandle([mk_node("n")], pods + [pre])
    victims, nviol, st = _select(h, pre, "n")
    # b (30) back: 1+2 ok; c (20) back: 3+2 > 4 -> victim; a (10): 2+1+... 1+1+2 = 4 ok
    assert st is None and victims == ["default/c"] and nviol == 0


def test_reprieve_equal_priority_older_first():
    pods = [mk_pod("young", 2, 10, "n", start_time=50.0), mk_pod("old", 2, 10, "n", start_time=10.0)]
    pre = mk_pod("p", 2, 100)
    h = FakeHandle([mk_node("n")], pods + [pre])
    victims, _, _ = _select(h, pre, "n")
    assert victims == ["default/young"]


def test_reprieve_equal_priority_no_start_time_follows_go_sort():
    # Without start times upstream compares two "now"s, the first asked being earlier, so Go's
    # insertion sort moves each later pod in front of equal ones: the order ends up reversed.
    pods = [mk_pod("first", 2, 10, "n", start_time=None), mk_pod("second", 2, 10, "n", start_time=None)]
    for p in pods:
        p.start_time = None
    pre = mk_pod("p", 2, 100)
    h = FakeHandle([mk_node("n")], pods + [pre])
    victims, _, _ = _select(h, pre, "n")
    assert victims == ["default/first"]  # "second" was considered more important and reprieved


def test_reprieve_pdb_violating_before_non_violating_and_victims_resorted():
    # guarded pods (low priority, PDB allows 0) are reprieved before the unguarded higher one
    pods = [
        mk_pod("g-low", 1, 5, "n", labels={"app": "g"}),
        mk_pod("free-high", 2, 50, "n", labels={"app": "f"}),
        mk_pod("g-mid", 2, 20, "n", labels={"app": "g"}),
    ]
    pre = mk_pod("p", 3, 100)
    pdb = mk_pdb("pdb", {"app": "g"}, allowed=0)
    h = FakeHandle([mk_node("n")], pods + [pre], [pdb])
    victims, nviol, st = _select(h, pre, "n")
    # violating (importance order): g-mid, g-low. g-mid back: 2+3 > 4 -> victim (violation 1);
    # g-low back: 1+3 = 4 ok. non-violating free-high: 2+1+3 > 4 -> victim.
    # victims re-sorted by importance: free-high (50) before g-mid (20)
    assert st is None
    assert victims == ["default/free-high", "default/g-mid"]
    assert nviol == 1


def test_no_fit_after_removing_all_returns_filter_status():
    pods = [mk_pod("a", 1, 10, "n"), mk_pod("b", 2, 500, "n")]
    pre = mk_pod("p", 3, 100)
    h = FakeHandle([mk_node("n")], pods + [pre])
    victims, nviol, st = _select(h, pre, "n")
    assert victims == [] and st.code == Code.UNSCHEDULABLE and st.reasons == ["Insufficient cpu"]


def test_nominated_higher_priority_pod_counts_in_dry_run():
    # a higher-priority pod nominated to n keeps its room: preemption can't use it
    pods = [mk_pod("low", 2, 10, "n")]
    nominee = mk_pod("nominee", 2, 200)
    pre = mk_pod("p", 3, 100)
    h = FakeHandle([mk_node("n")], pods + [pre, nominee], nominated={"n": [nominee]})
    victims, _, st = _select(h, pre, "n")
    assert victims == [] and st.reasons == ["Insufficient cpu"]


# ---------------------------------------------------------------------------------------------
# filterPodsWithPDBViolation
# ---------------------------------------------------------------------------------------------


def test_filter_pods_with_pdb_violation_counts_budget():
    a = mk_pod("a", labels={"app": "x"})
    b = mk_pod("b", labels={"app": "x"})
    c = mk_pod("c", labels={"app": "x"}, namespace="other")
    d = mk_pod("d")  # no labels: matches nothing
    e = mk_pod("e", labels={"app": "x"})
    pdbs = [mk_pdb("one", {"app": "x"}, allowed=1)]
    infos = [PodInfo(p) for p in (a, b, c, d, e)]
    viol, ok = filter_pods_with_pdb_violation(infos, pdbs)
    assert [pi.pod.name for pi in viol] == ["b", "e"]
    assert [pi.pod.name for pi in ok] == ["a", "c", "d"]


def test_filter_pods_with_pdb_violation_selectors_and_disrupted_pods():
    from scheduler_core.api.types import LabelSelector, LabelSelectorRequirement, PodDisruptionBudget

    a = mk_pod("a", labels={"app": "x"})
    empty = PodDisruptionBudget(name="empty", selector=LabelSelector(), disruptions_allowed=0)
    none = PodDisruptionBudget(name="none", selector=None, disruptions_allowed=0)
    expr = PodDisruptionBudget(name="expr", selector=LabelSelector(match_expressions=[
        LabelSelectorRequirement("app", "In", ("x",))]), disruptions_allowed=0)
    viol, ok = filter_pods_with_pdb_violation([PodInfo(a)], [empty, none])
    assert viol == [] and len(ok) == 1
    viol, ok = filter_pods_with_pdb_violation([PodInfo(a)], [expr])
    assert len(viol) == 1
    expr.disrupted_pods = {"a": 0.0}  # already processed by the API server: not counted
    viol, ok = filter_pods_with_pdb_violation([PodInfo(a)], [expr])
    assert viol == []


def test_filter_pods_with_pdb_violation_two_pdbs_one_violated():
    a = mk_pod("a", labels={"app": "x", "tier": "t"})
    pdbs = [mk_pdb("p1", {"app": "x"}, allowed=5), mk_pdb("p2", {"tier": "t"}, allowed=0)]
    viol, _ = filter_pods_with_pdb_violation([PodInfo(a)], pdbs)
    assert len(viol) == 1


# ---------------------------------------------------------------------------------------------
# Eligibility
# ---------------------------------------------------------------------------------------------


def _terminating_victim(name: str, prio: int, node: str) -> Pod:
    p = mk_pod(name, 1, prio, node)
    p.deletion_timestamp = 5.0
    p.conditions["DisruptionTarget"] = "True"
    p.condition_reasons["DisruptionTarget"] = "PreemptionByScheduler"
    return p


def test_terminating_victim_on_nominated_node_not_eligible():
    victim = _terminating_victim("v", 10, "n1")
    pre = mk_pod("p", 1, 100)
    pre.nominated_node_name = "n1"
    h = FakeHandle([mk_node("n1"), mk_node("n2")], [victim, pre])
    pl = DefaultPreemption(None, h)
    assert pl.pod_eligible_to_preempt_others(pre, Status(Code.UNSCHEDULABLE, "Insufficient cpu")) == (
        False, "not eligible due to a terminating pod on the nominated node.")
    # the nominated node is now unresolvable for the pod: try preempting elsewhere
    assert pl.pod_eligible_to_preempt_others(pre, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)) == (True, "")


@pytest.mark.parametrize("mutate, eligible", [
    (lambda p: None, False),
    (lambda p: setattr(p, "deletion_timestamp", None), True),  # not terminating
    (lambda p: p.conditions.clear(), True),  # deleted for another reason
    (lambda p: p.condition_reasons.update({"DisruptionTarget": "EvictionByEvictionAPI"}), True),
    (lambda p: setattr(p, "priority", 100), True),  # not lower priority than the preemptor
    (lambda p: setattr(p, "node_name", "n2"), True),  # terminating, but not on the nominated node
])
def test_terminating_victim_variants(mutate, eligible):
    victim = _terminating_victim("v", 10, "n1")
    mutate(victim)
    pre = mk_pod("p", 1, 100)
    pre.nominated_node_name = "n1"
    h = FakeHandle([mk_node("n1"), mk_node("n2")], [victim, pre])
    ok, _ = DefaultPreemption(None, h).pod_eligible_to_preempt_others(pre, Status(Code.UNSCHEDULABLE))
    assert ok is eligible


def test_pod_terminating_by_preemption():
    assert pod_terminating_by_preemption(_terminating_victim("v", 1, "n"))
    assert not pod_terminating_by_preemption(mk_pod("w"))


def test_no_nominated_node_always_eligible():
    pre = mk_pod("p", 1, 100)
    h = FakeHandle([mk_node("n1")], [pre])
    assert DefaultPreemption(None, h).pod_eligible_to_preempt_others(pre, None) == (True, "")


# ---------------------------------------------------------------------------------------------
# Candidate count and offset
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pct, abs_, num_nodes, want", [
    (10, 100, 0, 0),
    (10, 100, 10, 10),
    (10, 100, 1000, 100),
    (10, 100, 5000, 500),
    (10, 100, 1005, 100),
    (40, 50, 1000, 400),
    (0, 50, 1000, 50),
    (20, 0, 999, 199),
    (10, 0, 5, 0),
    (100, 0, 7, 7),
    (50, 10, 15, 10),
])
def test_calculate_num_candidates(pct, abs_, num_nodes, want):
    h = FakeHandle([mk_node("n")], [])
    pl = DefaultPreemption({"minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": abs_}, h)
    assert pl.calculate_num_candidates(num_nodes) == want


def test_offset_is_one_rng_draw():
    h = FakeHandle([mk_node("n")], [], seeded_rng=7)
    pl = DefaultPreemption(None, h)
    import random

    ref = random.Random(7)
    assert pl.get_offset_and_num_candidates(300) == (ref.randrange(300), 100)
    assert pl.get_offset_and_num_candidates(50) == (ref.randrange(50), 50)


@pytest.mark.parametrize("args, msg", [
    ({"minCandidateNodesPercentage": 101}, "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    ({"minCandidateNodesPercentage": -1}, "not in valid range [0, 100]"),
    ({"minCandidateNodesAbsolute": -1}, "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}, "cannot be zero at the same time"),
    ({"minCandidateNodesPercentage": "10"}, "must be an integer"),
])
def test_args_validation(args, msg):
    with pytest.raises(PluginArgsError) as e:
        DefaultPreemption(args, FakeHandle([mk_node("n")], []))
    assert msg in str(e.value) and str(e.value).startswith("DefaultPreemption: ")


def test_args_defaults():
    pl = DefaultPreemption(None, FakeHandle([mk_node("n")], []))
    assert (pl.min_candidate_nodes_percentage, pl.min_candidate_nodes_absolute) == (10, 100)


def _many_nodes(n: int, victim_prio=lambda i: 10):
    nodes = [mk_node(f"n{i:02d}", 2) for i in range(n)]
    pods = [mk_pod(f"v{i:02d}", 2, victim_prio(i), f"n{i:02d}") for i in range(n)]
    return nodes, pods


def test_dry_run_stops_at_num_candidates_from_offset():
    nodes, pods = _many_nodes(10)
    pre = mk_pod("p", 1, 100)
    h = FakeHandle(nodes, pods + [pre], offset=7)
    pl = DefaultPreemption({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 3}, h)
    result, status = h.schedule_and_preempt(pre, pl)
    ev = h.last_preemption_event()
    assert [c["node"] for c in ev["candidates"]] == ["n07", "n08", "n09"]
    assert result.nominated_node_name == "n07"
    assert h.rng.calls == [10]


def test_dry_run_wraps_around():
    nodes, pods = _many_nodes(4)
    pre = mk_pod("p", 1, 100)
    h = FakeHandle(nodes, pods + [pre], offset=3)
    pl = DefaultPreemption({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 2}, h)
    h.schedule_and_preempt(pre, pl)
    assert [c["node"] for c in h.last_preemption_event()["candidates"]] == ["n03", "n00"]


def test_dry_run_keeps_going_until_a_pdb_respecting_candidate():
    nodes, pods = _many_nodes(5)
    for p in pods[:3]:
        p.labels = {"app": "g"}
    pdb = mk_pdb("g", {"app": "g"}, allowed=0)
    pre = mk_pod("p", 1, 100)
    h = FakeHandle(nodes, pods + [pre], [pdb], offset=0)
    pl = DefaultPreemption({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 2}, h)
    result, _ = h.schedule_and_preempt(pre, pl)
    cands = h.last_preemption_event()["candidates"]
    # n00, n01 violate (list capped at 2, n02 dropped); n03 respects PDBs and stops the run
    assert [(c["node"], c["num_pdb_violations"]) for c in cands] == [("n03", 0), ("n00", 1), ("n01", 1)]
    assert result.nominated_node_name == "n03"


def test_zero_candidates_wanted_checks_all_and_finds_none():
    # pct 10 of 5 nodes = 0 with abs 0: upstream's lists have no room, so nothing is a candidate
    nodes, pods = _many_nodes(5)
    pre = mk_pod("p", 1, 100)
    h = FakeHandle(nodes, pods + [pre])
    pl = DefaultPreemption({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 0}, h)
    result, status = h.schedule_and_preempt(pre, pl)
    assert result.nominated_node_name == ""
    assert status.message() == "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."


def test_only_unschedulable_nodes_are_tried():
    nodes, pods = _many_nodes(3)
    pre = mk_pod("p", 1, 100)
    h = FakeHandle(nodes, pods + [pre])
    unres = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")
    result, status = h.schedule_and_preempt(pre, statuses={"n00": unres, "n02": unres})
    assert result.nominated_node_name == "n01"
    assert h.rng.calls == [1]
    assert h.last_preemption_event()["why"] == CRITERION_ONLY_CANDIDATE


# ---------------------------------------------------------------------------------------------
# Preparing the candidate: deletions and nominations
# ---------------------------------------------------------------------------------------------


def test_lower_priority_nominations_cleared_before_victims_deleted():
    victim = mk_pod("victim", 2, 10, "n1")
    low_nom = mk_pod("low-nominee", 1, 50)
    high_nom = mk_pod("high-nominee", 1, 500)
    low_nom.nominated_node_name = high_nom.nominated_node_name = "n1"
    pre = mk_pod("p", 2, 100)
    h = FakeHandle([mk_node("n1", 3)], [victim, low_nom, high_nom, pre],
                   nominated={"n1": [low_nom, high_nom]})
    # 3 cpu: victim 2 + high nominee 1 (counted) -> preemptor 2 fits once victim goes
    result, status = h.schedule_and_preempt(pre)
    assert status is None and result.nominated_node_name == "n1"
    assert h.log == [("clear", "default/low-nominee"), ("preempt", "default/victim", "default/p", "n1")]
    assert low_nom.nominated_node_name == "" and high_nom.nominated_node_name == "n1"


def test_sync_preemption_deletes_then_clears():
    victim = mk_pod("victim", 2, 10, "n1")
    low_nom = mk_pod("low-nominee", 1, 50)
    pre = mk_pod("p", 2, 100)
    h = FakeHandle([mk_node("n1", 3)], [victim, low_nom, pre], nominated={"n1": [low_nom]})
    pl = DefaultPreemption(None, h, enable_async_preemption=False)
    h.schedule_and_preempt(pre, pl)
    assert h.log == [("preempt", "default/victim", "default/p", "n1"), ("clear", "default/low-nominee")]


def test_terminating_victims_not_deleted_again():
    t = mk_pod("t", 2, 10, "n1")
    t.deletion_timestamp = 3.0  # graceful deletion under way (not by preemption)
    v = mk_pod("v", 2, 10, "n1")
    pre = mk_pod("p", 4, 100)
    h = FakeHandle([mk_node("n1", 4)], [t, v, pre])
    result, status = h.schedule_and_preempt(pre)
    assert result.nominated_node_name == "n1"
    assert h.preempted() == ["default/v"]


def test_preemptor_not_found_is_error():
    pre = mk_pod("ghost", 1, 100)
    h = FakeHandle([mk_node("n1")], [mk_pod("v", 4, 1, "n1")])
    result, status = h.schedule_and_preempt(pre)
    assert result is None and status.code == Code.ERROR
    assert status.message() == 'preemption: pods "ghost" not found'


# ---------------------------------------------------------------------------------------------
# Extenders, PreEnqueue, events
# ---------------------------------------------------------------------------------------------


def _two_candidates(extenders):
    pods = [mk_pod("a", 2, 10, "n1"), mk_pod("b", 2, 20, "n2")]
    pre = mk_pod("p", 1, 100)
    h = FakeHandle([mk_node("n1", 2), mk_node("n2", 2)], pods + [pre], extenders=extenders)
    return h, pre


def test_extender_can_remove_candidates():
    ext = FakeExtender(drop={"n1"})
    h, pre = _two_candidates([ext])
    result, status = h.schedule_and_preempt(pre)
    assert ext.seen == [["n1", "n2"]]
    assert result.nominated_node_name == "n2"


def test_extender_error_and_ignorable():
    h, pre = _two_candidates([FakeExtender(error="boom")])
    result, status = h.schedule_and_preempt(pre)
    assert result is None and status.code == Code.ERROR and status.message() == "preemption: boom"
    h, pre = _two_candidates([FakeExtender(error="boom", ignorable=True), FakeExtender(interested=False)])
    result, status = h.schedule_and_preempt(pre)
    assert result.nominated_node_name == "n1"


def test_extender_removing_all_candidates():
    h, pre = _two_candidates([FakeExtender(drop={"n1", "n2"})])
    result, status = h.schedule_and_preempt(pre)
    assert result is None and status.message() == "preemption: no candidate node for preemption"


def test_pre_enqueue_and_events():
    h = FakeHandle([mk_node("n1")], [])
    pl = DefaultPreemption(None, h)
    p = mk_pod("p", 1, 1)
    assert pl.pre_enqueue(p) is None
    pl.evaluator.preempting.add(p.uid)
    st = pl.pre_enqueue(p)
    assert st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.message() == "waiting for the preemption for this pod to be finished"
    # last victim recorded and already gone: preemption is over
    pl.evaluator.last_victims_pending_preemption[p.uid] = ("default", "gone")
    assert pl.pre_enqueue(p) is None
    evs = pl.events_to_register()
    assert len(evs) == 1 and evs[0].event.resource == "Pod"
    assert evs[0].queueing_hint_fn(p, p, None) == QueueingHint.SKIP
    sync = DefaultPreemption(None, h, enable_async_preemption=False)
    sync.evaluator.preempting.add(p.uid)
    assert sync.pre_enqueue(p) is None and sync.events_to_register() == []


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def test_fit_error_message_counts_absent_nodes():
    m = NodeToStatus()
    m.set("a", Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory"))
    m.set("b", Status(Code.UNSCHEDULABLE, "Insufficient cpu"))
    m.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Preemption is not helpful for scheduling")
    assert fit_error_message(12, m) == ("0/12 nodes are available: 1 Insufficient memory, 10 Preemption is not "
                                        "helpful for scheduling, 2 Insufficient cpu.")
    assert fit_error_message(0, NodeToStatus()) == "0/0 nodes are available:"


def test_aggregate_errors():
    assert aggregate_errors([]) == ""
    assert aggregate_errors(["x"]) == "x"
    assert aggregate_errors(["x", "x"]) == "x"
    assert aggregate_errors(["x", "y", "x"]) == "[x, y]"


def test_go_sort_slice_matches_sorted_and_is_go_insertion_for_small():
    import random

    rnd = random.Random(1)
    for n in (0, 1, 5, 12, 13, 49, 50, 51, 200, 1000):
        xs = [rnd.randint(0, n // 4 + 1) for _ in range(n)]
        ys = list(xs)
        go_sort_slice(ys, lambda a, b: a < b)
        assert ys == sorted(xs)
    # an always-true less (two "now" start times) reverses a short slice, as Go's insertion sort does
    zs = list(range(8))
    go_sort_slice(zs, lambda a, b: True)
    assert zs == list(range(7, -1, -1))


def test_go_sort_slice_replays_go_comparisons():
    # Recorded from Go's sort.Slice (descending key) on 20 elements: A with a consistent less,
    # B with upstream's "two fresh now()s" tie-break (the first asked is the earlier).
    keys_in = [6, 3, 4, 5, 5, 2, 3, 3, 4, 0, 4, 4, 6, 4, 6, 2, 2, 0, 1, 5]
    want_a = [0, 12, 14, 19, 4, 3, 8, 2, 10, 11, 13, 6, 7, 1, 5, 15, 16, 18, 17, 9]
    want_b = [12, 14, 0, 3, 19, 4, 2, 13, 11, 10, 8, 1, 7, 6, 16, 5, 15, 18, 9, 17]
    a = list(enumerate(keys_in))
    go_sort_slice(a, lambda x, y: x[1] > y[1])
    assert [i for i, _ in a] == want_a
    tick = [0]

    def less_now(x, y):
        if x[1] != y[1]:
            return x[1] > y[1]
        tick[0] += 1
        first = tick[0]
        tick[0] += 1
        return first < tick[0]

    b = list(enumerate(keys_in))
    go_sort_slice(b, less_now)
    assert [i for i, _ in b] == want_b


def test_rng_stub_sanity():
    assert FixedRng(5).randrange(3) == 2
