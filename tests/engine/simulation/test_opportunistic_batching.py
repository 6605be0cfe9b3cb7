"""Opportunistic batching: identical consecutive pods reuse the previous cycle's sorted nodes
when the node just chosen is full, instead of a new filter walk; never with the default profile
(PodTopologySpread's system defaults make pods unsignable)."""

from __future__ import annotations

import yaml

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def _scenario(config: dict | None, cpus: list[str], pods: int, distinct: bool = False) -> str:
    docs: list[dict] = []
    if config is not None:
        docs.append(config)
    for i, c in enumerate(cpus):
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                     "status": {"capacity": {"cpu": str(c), "memory": "8Gi"}}})
    for j in range(pods):
        cpu = "2" if not distinct else f"{2000 - j}m"
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{j}"},
                     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})
    return yaml.safe_dump_all(docs)


NO_SPREAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
             "profiles": [{"schedulerName": "default-scheduler",
                           "plugins": {"multiPoint": {"disabled": [{"name": "PodTopologySpread"}]}}}]}


def _run(text: str) -> tuple[Simulation, dict[str, str]]:
    sim = Simulation(load_scenario_text(text), record_events=True)
    assert sim.run()
    return sim, {p["name"]: p["node"] for p in sim.result(True)["pods"]}


def test_default_profile_never_batches() -> None:
    sim, _ = _run(_scenario(None, ["2", "3", "2", "3500m"], 3))
    assert sim.scheduler.batches["default-scheduler"].batched_pods == 0
    assert not [e for e in sim.sink.events if e["type"] == "selected" and e.get("hinted")]


def test_identical_pods_follow_the_previous_sorted_nodes() -> None:
    # Every node fits exactly one pod; bigger nodes score higher (LeastAllocated).
    sim, placed = _run(_scenario(NO_SPREAD, ["2", "3", "2", "3500m"], 3))
    batch = sim.scheduler.batches["default-scheduler"]
    assert batch.batched_pods >= 1
    hinted = [e for e in sim.sink.events if e["type"] == "selected" and e.get("hinted")]
    assert hinted, "the hinted node should have been taken without scoring"
    assert len(set(placed.values())) == 3
    # Without batching signatures (pods differ), every pod gets a full cycle.
    sim2, _ = _run(_scenario(NO_SPREAD, ["2", "3", "2", "3500m"], 3, distinct=True))
    assert sim2.scheduler.batches["default-scheduler"].batched_pods == 0


def test_asking_the_last_refusing_plugin_first_signs_as_the_full_walk() -> None:
    # sign_pod with the batch asks first the plugin that refused the previous pod; the answers
    # must be the full walk's, for pods that alternate between signable and not.
    from scheduler_core.framework.runtime.batch import OpportunisticBatch, sign_pod

    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                             "whenUnsatisfiable": "DoNotSchedule",
                                             "labelSelector": {"matchLabels": {"app": "a"}}}]}
    docs = list(yaml.safe_load_all(_scenario(NO_SPREAD | {"profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "listed", "pluginConfig": [
            {"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]},
    ]}, ["4"], 0)))
    # Two plugins refuse here: PodTopologySpread (constraints), InterPodAffinity (affinity).
    affinity = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    for j, extra in enumerate([{}, spread, {}, affinity, spread, affinity, affinity, {}, spread]):
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{j}", "labels": {"app": "a"}},
                     "spec": {"containers": [{"name": "c", "image": f"img:{j % 2}",
                                              "resources": {"requests": {"cpu": f"{100 + j}m"}}}], **extra}})
    sim = Simulation(load_scenario_text(yaml.safe_dump_all(docs)))
    sched = sim.scheduler
    for profile in ("default-scheduler", "listed"):
        fwk, plugins = sched.profiles[profile], sched.batchable[profile]
        batch = OpportunisticBatch()
        answers = []
        for pod in sched.cluster.pods.values():
            want = sign_pod(fwk, plugins, pod)
            assert sign_pod(fwk, plugins, pod, batch) == want, (profile, pod.name)
            answers.append(want is None)
        # The default profile refuses every pod; the other signs the pods without constraints.
        assert all(answers) if profile == "default-scheduler" else 0 < answers.count(True) < len(answers)
