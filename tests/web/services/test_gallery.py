"""The teaching gallery: every file loads, seeds idempotently, and runs to settled in the engine
with the outcome its explanation promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from playground.services import gallery

ENTRIES = gallery.gallery_entries()
SLUGS = [entry.slug for entry in ENTRIES]


def test_there_are_at_least_eight_explained_scenarios() -> None:
    assert len(ENTRIES) >= 8
    for entry in ENTRIES:
        assert entry.title and entry.title != entry.slug
        assert len(entry.explanation) > 80, entry.slug
    assert len({e.order for e in ENTRIES}) == len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_each_file_is_a_valid_scenario(entry: gallery.GalleryEntry) -> None:
    from scheduler_core.loader import load_scenario_text

    scenario = load_scenario_text(entry.text, source=entry.path.name)
    assert scenario.nodes and scenario.pods


def _run(text: str, source: str, feature_gates: str = "") -> dict:
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    simulation = Simulation(load_scenario_text(text, source=source), seed=0, feature_gates=feature_gates or None)
    settled = simulation.run(max_time=3600)
    assert settled is True, f"{source} did not settle"
    return simulation.result(settled)


def _pods(result: dict) -> dict[str, dict]:
    return {pod["name"]: pod for pod in result["pods"]}


def _check_resource_fit(pods: dict[str, dict], result: dict) -> None:
    assert pods["too-big"]["status"] == "Pending"
    assert "Insufficient cpu" in pods["too-big"]["message"]
    assert all(p["status"] == "Bound" for name, p in pods.items() if name != "too-big")
    assert len({p["node"] for name, p in pods.items() if name.startswith("web-")}) > 1  # spread, not packed


def _check_taints(pods: dict[str, dict], result: dict) -> None:
    assert pods["trainer-pinned"]["node"] == "gpu-1"
    for name in ("web-1", "web-2", "big-web", "bigger-web"):
        assert pods[name]["node"] != "gpu-1"


def _check_node_affinity(pods: dict[str, dict], result: dict) -> None:
    assert pods["database"]["node"] in ("a-ssd", "b-ssd")
    assert pods["cache"]["status"] == "Bound"
    assert pods["analytics"]["status"] == "Pending"
    assert "node affinity/selector" in pods["analytics"]["message"]


def _check_anti_affinity(pods: dict[str, dict], result: dict) -> None:
    placed = [pods[f"etcd-{i}"]["node"] for i in (1, 2, 3)]
    assert sorted(placed) == ["node-1", "node-2", "node-3"]
    assert pods["etcd-4"]["status"] == "Pending"
    assert "anti-affinity" in pods["etcd-4"]["message"]


def _check_spread(pods: dict[str, dict], result: dict) -> None:
    bound = [p for p in pods.values() if p["status"] == "Bound"]
    assert len(bound) == 8
    assert pods["api-9"]["status"] == "Pending"
    assert "topology spread constraints" in pods["api-9"]["message"]


def _check_preemption(pods: dict[str, dict], result: dict) -> None:
    assert pods["payments"]["status"] == "Bound"
    assert pods["reports"]["status"] == "Pending"
    assert "preemptionPolicy=Never" in pods["reports"]["message"]
    assert sum(1 for p in pods.values() if p["deletedBy"] == "Preempted") == 2


def _check_pdb(pods: dict[str, dict], result: dict) -> None:
    assert pods["urgent"]["node"] == "p2"
    assert pods["free-1"]["deletedBy"] == "Preempted"
    assert pods["guarded-1"]["status"] == pods["guarded-2"]["status"] == "Bound"


def _check_noexecute(pods: dict[str, dict], result: dict) -> None:
    assert pods["plain"]["deletedBy"] == "TaintManagerEviction"
    assert pods["tolerates-30s"]["deletedBy"] == "TaintManagerEviction"
    assert pods["tolerates-forever"]["node"] == "worker-1"
    assert pods["late"]["node"] == "worker-2"
    evictions = {e["object"]: e["time"] for e in result["events"] if e["reason"] == "TaintManagerEviction"}
    assert evictions == {"default/plain": 10.0, "default/tolerates-30s": 40.0}


def _check_percentage(pods: dict[str, dict], result: dict) -> None:
    assert all(p["status"] == "Bound" for p in pods.values())


def _check_workloads(pods: dict[str, dict], result: dict) -> None:
    from collections import Counter

    assert all(p["status"] == "Bound" for p in pods.values())
    web = [p for name, p in pods.items() if name.startswith("web-")]
    assert len(web) == 6 and len({name.rsplit("-", 1)[0] for name in pods if name.startswith("web-")}) == 1
    # Default topology spreading, no constraint written: 2 per worker, none on the control plane.
    assert Counter(p["node"] for p in web) == {"worker-a": 2, "worker-b": 2, "worker-c": 2}
    agents = sorted(p["node"] for name, p in pods.items() if name.startswith("node-agent-"))
    assert agents == ["worker-a", "worker-b", "worker-c"]  # the tainted node is not eligible
    collectors = sorted(p["node"] for name, p in pods.items() if name.startswith("log-collector-"))
    assert collectors == ["control-plane", "worker-a", "worker-b", "worker-c"]  # tolerated


CHECKS = {
    "resource-fit": _check_resource_fit,
    "taints-tolerations": _check_taints,
    "node-affinity": _check_node_affinity,
    "pod-anti-affinity": _check_anti_affinity,
    "topology-spread": _check_spread,
    "priority-preemption": _check_preemption,
    "preemption-pdb": _check_pdb,
    "noexecute-eviction": _check_noexecute,
    "percentage-of-nodes-to-score": _check_percentage,
    "deployments-daemonsets": _check_workloads,
}


def test_without_default_spreading_the_web_pods_would_pile_up() -> None:
    """The workloads scenario's explanation: it is the default topology spreading that gives
    2 web pods per worker; least-allocated scoring alone favours the big worker."""
    from collections import Counter

    entry = next(e for e in ENTRIES if e.slug == "deployments-daemonsets")
    config = ("---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
              "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n"
              "      disabled: [{name: PodTopologySpread}]\n")
    pods = _pods(_run(entry.text + config, "no-spread.yaml"))
    web = Counter(p["node"] for name, p in pods.items() if name.startswith("web-"))
    assert web["worker-a"] > 2, web


def test_the_checked_scenarios_are_all_in_the_gallery() -> None:
    assert set(CHECKS) <= set(SLUGS)


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_each_gallery_scenario_runs_to_settled_as_explained(entry: gallery.GalleryEntry) -> None:
    result = _run(entry.text, entry.path.name, entry.feature_gates)
    check = CHECKS.get(entry.slug)  # scenarios added later without a check must still settle
    if check is not None:
        check(_pods(result), result)


@pytest.mark.django_db
def test_seed_is_idempotent_and_stores_what_the_engine_reads() -> None:
    first = {s.gallery_slug: s.share_token for s in gallery.seed()}
    assert set(first) == set(SLUGS)
    again = {s.gallery_slug: s.share_token for s in gallery.seed()}
    assert again == first
    assert Scenario.objects.filter(is_gallery=True).count() == len(SLUGS)
    stored = Scenario.objects.get(gallery_slug="noexecute-eviction")
    assert stored.explanation and stored.owner_token == "" and stored.owner is None
    # the rows export to YAML that runs exactly like the file
    entry = next(e for e in ENTRIES if e.slug == "noexecute-eviction")
    from_rows = _run(scenario_yaml(scenario=stored), "stored")
    assert from_rows["pods"] == _run(entry.text, "file")["pods"]


@pytest.mark.django_db
def test_a_changed_file_refreshes_its_scenario_and_a_broken_one_is_skipped(tmp_path: Path) -> None:
    source = next(e for e in ENTRIES if e.slug == "pod-anti-affinity")
    (tmp_path / "demo.yaml").write_text(source.text)
    (tmp_path / "broken.yaml").write_text("# title: Broken\napiVersion: v1\nkind: Gizmo\n")
    seeded = gallery.seed(tmp_path)
    assert [s.gallery_slug for s in seeded] == ["demo"]
    token = seeded[0].share_token
    (tmp_path / "demo.yaml").write_text(source.text.replace("name: etcd-4", "name: etcd-four"))
    refreshed = gallery.seed(tmp_path)[0]
    assert refreshed.share_token == token
    assert refreshed.kube_objects.filter(name="etcd-four").exists()
    assert not Scenario.objects.filter(gallery_slug="broken").exists()
