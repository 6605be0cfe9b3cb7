"""Each strategy evicts what upstream's would, and only that."""

from __future__ import annotations

from tests.engine.descheduler.helpers import deschedule, evicted, node, pod, policy, profile, simulate


def _sim(nodes, pods, prof, **top):
    return simulate([*nodes, *pods, policy([prof], **top)])


def test_node_taints_evicts_pods_that_do_not_tolerate_a_new_noschedule_taint():
    sim = _sim([node("a"), node("b")],
               [pod("plain", "a"), pod("tolerant", "a", spec={"tolerations": [
                   {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]}), pod("other", "b")],
               profile("RemovePodsViolatingNodeTaints", "deschedule"))
    assert evicted(deschedule(sim)) == []
    sim.apply_manifest_action({"action": "addTaint", "node": "a", "taint": {"key": "dedicated", "effect": "NoSchedule"}})
    events = deschedule(sim)
    assert evicted(events) == ["default/plain"]
    assert next(e for e in events if e["type"] == "descheduler_evicted")["strategy"] == "RemovePodsViolatingNodeTaints"


def test_node_taints_excluded_taints_are_left_alone():
    sim = _sim([node("a", taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]), node("b")],
               [pod("plain", "a")],
               profile("RemovePodsViolatingNodeTaints", "deschedule", {"excludedTaints": ["dedicated=x"]}))
    assert evicted(deschedule(sim)) == []


def test_node_affinity_evicts_a_pod_whose_node_lost_the_label_when_another_node_fits():
    sel = {"nodeSelector": {"disk": "ssd"}}
    sim = _sim([node("a", labels={"disk": "ssd"}), node("b", labels={"disk": "ssd"})],
               [pod("p", "a", spec=sel)],
               profile("RemovePodsViolatingNodeAffinity", "deschedule",
                       {"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]}))
    assert evicted(deschedule(sim)) == []
    sim.apply_manifest_action({"action": "setNodeLabels", "node": "a", "labels": {"disk": None}})
    assert evicted(deschedule(sim)) == ["default/p"]
    sim.run()
    assert next(p for p in sim.view()["pods"] if p["status"] == "Bound")["node"] == "b"


def test_node_affinity_keeps_a_pod_no_other_node_would_take():
    sim = _sim([node("a", labels={"disk": "ssd"}), node("b")], [pod("p", "a", spec={"nodeSelector": {"disk": "ssd"}})],
               profile("RemovePodsViolatingNodeAffinity", "deschedule",
                       {"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"]}))
    sim.apply_manifest_action({"action": "setNodeLabels", "node": "a", "labels": {"disk": None}})
    assert evicted(deschedule(sim)) == []


def test_inter_pod_anti_affinity_evicts_the_lower_priority_pod_of_a_violating_pair():
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    sim = _sim([node("a"), node("b")],
               [pod("db", "a", labels={"app": "db"}, spec={"priority": 10}),
                pod("cache", "a", labels={"app": "cache"}, spec=anti)],
               profile("RemovePodsViolatingInterPodAntiAffinity", "deschedule"))
    assert evicted(deschedule(sim)) == ["default/cache"]


def test_remove_duplicates_leaves_the_owner_evenly_spread():
    pods = [pod(f"w{i}", "a", owner=("ReplicaSet", "web")) for i in range(4)]
    sim = _sim([node("a"), node("b")], pods, profile("RemoveDuplicates", "balance"))
    events = deschedule(sim)
    # 4 pods over 2 feasible nodes: at most 2 per node, so 2 of a's 4 go.
    assert evicted(events) == ["default/w2", "default/w3"]


def test_remove_duplicates_exclude_owner_kinds():
    pods = [pod(f"w{i}", "a", owner=("ReplicaSet", "web")) for i in range(4)]
    sim = _sim([node("a"), node("b")], pods, profile("RemoveDuplicates", "balance", {"excludeOwnerKinds": ["ReplicaSet"]}))
    assert evicted(deschedule(sim)) == []


def test_topology_spread_evicts_from_the_largest_domain_until_within_max_skew():
    tsc = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                          "labelSelector": {"matchLabels": {"app": "web"}}}]}
    pods = [pod(f"w{i}", "a", spec=tsc) for i in range(4)]
    sim = _sim([node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})], pods,
               profile("RemovePodsViolatingTopologySpreadConstraint", "balance"))
    assert len(evicted(deschedule(sim))) == 2  # 4/0 -> 2/2
    sim.run()
    assert sorted(p["node"] for p in sim.view()["pods"] if p["status"] == "Bound") == ["a", "a", "b", "b"]


def test_high_node_utilization_empties_the_least_used_node():
    pods = [pod("w0", "a", cpu="3"), pod("w1", "b", cpu="500m")]
    sim = _sim([node("a"), node("b")], pods, profile("HighNodeUtilization", "balance", {"thresholds": {"cpu": 20}}))
    events = deschedule(sim)
    classified = next(e for e in events if e["type"] == "descheduler_nodes_classified")
    assert {n["node"]: n["class"] for n in classified["nodes"]} == {"a": "overutilized", "b": "underutilized"}
    assert evicted(events) == ["default/w1"]


def test_remove_duplicates_recreates_with_a_new_generated_name_under_the_same_owner():
    pods = [pod(f"w{i}", "a", owner=("ReplicaSet", "web")) for i in range(2)]
    sim = _sim([node("a"), node("b")], pods, profile("RemoveDuplicates", "balance"))
    events = deschedule(sim)
    new = next(e for e in events if e["type"] == "descheduler_finished")["recreated"]
    assert len(new) == 1 and new[0].startswith("default/web-")
    sim.run()
    assert next(p for p in sim.view()["pods"] if p["key"] == new[0])["owner"] == "ReplicaSet/web"


def _lnu_cluster(args, **top):
    """Three nodes: a (3 of 4 cpus requested by three pods), b (1 cpu), c (empty)."""
    pods = [pod(f"a{i}", "a", cpu="1") for i in range(3)] + [pod("b0", "b", cpu="1")]
    return _sim([node("a"), node("b"), node("c")], pods, profile("LowNodeUtilization", "balance", args), **top)


def _classes(events):
    classified = next(e for e in events if e["type"] == "descheduler_nodes_classified")
    return {n["node"]: n["class"] for n in classified["nodes"]}, classified


def test_low_node_utilization_number_of_nodes_and_excluded_namespaces():
    args = {"thresholds": {"cpu": 20}, "targetThresholds": {"cpu": 50}}
    assert len(evicted(deschedule(_lnu_cluster(args)))) == 1  # c takes one pod up to its 50% target
    events = deschedule(_lnu_cluster({**args, "numberOfNodes": 1}))
    assert evicted(events) == [] and _classes(events)[1]["outcome"].startswith("Number of nodes underutilized")
    excluded = deschedule(_lnu_cluster({**args, "evictableNamespaces": {"exclude": ["default"]}}))
    assert evicted(excluded) == []


def test_low_node_utilization_deviation_thresholds_are_relative_to_the_average():
    # Average cpu usage (75 + 25 + 0) / 3 = 33.3%: under 33.3 - 10, over 33.3 + 10.
    events = deschedule(_lnu_cluster({"thresholds": {"cpu": 10}, "targetThresholds": {"cpu": 10},
                                      "useDeviationThresholds": True}))
    classes, classified = _classes(events)
    assert classes == {"a": "overutilized", "b": "appropriately utilized", "c": "underutilized"}
    low, high = classified["nodes"][0]["thresholds"]
    assert (low["cpu"], high["cpu"]) == (23.33, 43.33)
    # c's room up to 43.33% is 1733m: after one 1-cpu pod 733m remain (> 0), so a second goes,
    # and then a (1 cpu of 4) is under its target.
    assert evicted(events) == ["default/a0", "default/a1"]


def test_low_node_utilization_node_limit():
    pods = [pod(f"a{i}", "a", cpu="1") for i in range(4)]
    args = {"thresholds": {"cpu": 20}, "targetThresholds": {"cpu": 30}, "evictionLimits": {"node": 1}}
    sim = _sim([node("a"), node("b"), node("c")], pods, profile("LowNodeUtilization", "balance", args))
    assert len(evicted(deschedule(sim))) == 1


def test_topology_spread_schedule_anyway_only_when_asked():
    tsc = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                                          "labelSelector": {"matchLabels": {"app": "web"}}}]}
    pods = [pod(f"w{i}", "a", spec=tsc) for i in range(4)]
    nodes = [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})]
    plugin = "RemovePodsViolatingTopologySpreadConstraint"
    assert evicted(deschedule(_sim(nodes, pods, profile(plugin, "balance")))) == []
    asked = _sim(nodes, pods, profile(plugin, "balance", {"constraints": ["DoNotSchedule", "ScheduleAnyway"]}))
    assert len(evicted(deschedule(asked))) == 2
