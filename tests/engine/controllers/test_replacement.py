"""The one way an evicted pod's controller replaces it (controllers.workloads.replace), shared by
the descheduler's evictions and a drain's: a ReplicaSet pod gets a new generated name that no
earlier pod used, a StatefulSet pod still present waits for its name, and a pod without a
controller is not replaced."""

from __future__ import annotations

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.workloads.replace import create_replacement
from tests.engine.descheduler.helpers import node, pod, simulate


def test_a_replicaset_pod_is_replaced_under_a_new_generated_name() -> None:
    sim = simulate([node("n1"), pod("web-a", "n1")])
    old = sim.scheduler.cluster.pods["default/web-a"]
    assert sim.apiserver.evict_pod(old.key) is None
    taken = {"web-a"}
    new = create_replacement(sim, old, lambda ns: taken, origin="test", index_base=5_000_000)
    assert new is not None and new.key in sim.scheduler.cluster.pods
    assert new.name.startswith("rs-") and new.name in taken and new.name != "web-a"
    assert not new.node_name  # admitted afresh, for the scheduler to place


def test_a_statefulset_pod_still_present_is_not_recreated_yet() -> None:
    sim = simulate([node("n1"), pod("db-0", "n1", owner=("StatefulSet", "db"))])
    before = set(sim.scheduler.cluster.pods)
    held = sim.scheduler.cluster.pods["default/db-0"]
    assert create_replacement(sim, held, lambda ns: set(), origin="test", index_base=5_000_000) is None
    assert set(sim.scheduler.cluster.pods) == before


def test_a_pod_without_a_controller_is_not_replaced() -> None:
    sim = simulate([node("n1"), pod("solo", "n1", owner=None)])
    solo = sim.scheduler.cluster.pods["default/solo"]
    assert sim.apiserver.evict_pod(solo.key) is None
    assert create_replacement(sim, solo, lambda ns: set(), origin="test", index_base=5_000_000) is None
    assert "default/solo" not in sim.scheduler.cluster.pods


HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}


def test_the_simulation_reads_a_replacement_as_an_added_pod_without_creating_it() -> None:
    """The controllers sit below the loader: the simulation parses their new pods for them, with
    the scenario's PriorityClasses for admission, and leaves the creation to the caller."""
    sim = simulate([HIGH, node("n1")])
    manifest = pod("web-b", spec={"priorityClassName": "high"})
    new = sim.pod_from_manifest(manifest, index=7)
    assert (new.key, new.priority, new.node_name) == ("default/web-b", 1000, "")
    assert new.key not in sim.scheduler.cluster.pods
    assert sim.pod_from_manifest(manifest, index=8).uid != new.uid  # the index tells uids apart


def test_a_replacement_that_does_not_load_is_refused_with_its_field() -> None:
    sim = simulate([node("n1")])
    before = set(sim.scheduler.cluster.pods)
    bad = pod("web-c", spec={"priorityClassName": "missing"})
    with pytest.raises(ScenarioError, match="missing"):
        sim.pod_from_manifest(bad, index=7)
    assert set(sim.scheduler.cluster.pods) == before
