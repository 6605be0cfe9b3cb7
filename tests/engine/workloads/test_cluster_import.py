"""Cluster dumps (kubectl List, kube-scheduler-simulator export) import as scenarios."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

from scheduler_core.loader import load_scenario_file, load_scenario_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
KUBECTL = FIXTURES / "kubectl-get-all.yaml"
SIMULATOR = FIXTURES / "simulator-export.json"


@functools.cache
def _raw(path: Path) -> dict:
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _raw_pods(path: Path) -> list[dict]:
    data = _raw(path)
    return data["items"] if "items" in data else data["pods"]


load_scenario_file = functools.cache(load_scenario_file)  # each fixture is parsed once


def test_kubectl_dump_keeps_bound_pods_and_drops_finished_ones():
    raw = [p for p in _raw_pods(KUBECTL) if p["kind"] == "Pod"]
    sc = load_scenario_file(KUBECTL)
    s = sc.load_summary
    assert s.source_format == "kubectl-list"
    finished = {f'{p["metadata"]["namespace"]}/{p["metadata"]["name"]}' for p in raw
                if p["status"]["phase"] in ("Succeeded", "Failed")}
    assert finished and not finished & {p.key for p in sc.pods}
    assert {e.name for e in s.entries if e.outcome == "dropped" and e.kind == "Pod"} == finished
    # Every live pod kept, bound where the dump says, none duplicated by its controller.
    live = {f'{p["metadata"]["namespace"]}/{p["metadata"]["name"]}': p["spec"].get("nodeName", "")
            for p in raw if p["status"]["phase"] not in ("Succeeded", "Failed")}
    assert {p.key: p.node_name for p in sc.pods} == live
    # No pod is created; the StatefulSet's claims (which `kubectl get all` does not list) are.
    assert s.count("created") == {"PersistentVolumeClaim": 3}
    assert s.count("dropped")["Deployment"] == 8 and s.count("dropped")["DaemonSet"] == 3


def test_kubectl_dump_missing_daemon_pod_is_recreated_for_its_node():
    data = copy.deepcopy(_raw(KUBECTL))
    victim = next(p for p in data["items"] if p["kind"] == "Pod"
                  and p["metadata"]["name"].startswith("node-exporter-"))
    data["items"].remove(victim)
    sc = load_scenario_text(yaml.safe_dump(data), source="dump.yaml")
    created = [e for e in sc.load_summary.entries if e.outcome == "created" and e.kind == "Pod"]
    assert len(created) == 1
    pod = next(p for p in sc.pods if p.key == created[0].name)
    fields = pod.affinity.node_affinity.required.node_selector_terms[0].match_fields
    assert fields[0].values == (victim["spec"]["nodeName"],)


def test_simulator_export_imports_with_unmodelled_objects_listed():
    sc = load_scenario_file(SIMULATOR)
    s = sc.load_summary
    assert s.source_format == "kube-scheduler-simulator"
    assert len(sc.nodes) == 30
    assert {k: n for k, n in s.count("dropped").items()} == {"Pod": 5}
    # the storage objects come in (volumes are simulated)
    assert [pv.name for pv in sc.storage.pvs] == ["pv-data-0"]
    assert [c.key for c in sc.storage.pvcs] == ["db/data-postgres-0"]
    assert [c.name for c in sc.storage.classes] == ["gp3"]
    assert sc.config.parallelism == 16
    assert sum(1 for p in sc.pods if p.node_name) == len(sc.pods) - 2  # two were pending


def test_dump_and_export_give_the_same_cluster():
    a = load_scenario_file(KUBECTL)
    b = load_scenario_file(SIMULATOR)
    assert [(p.key, p.node_name, p.priority) for p in a.pods] == [(p.key, p.node_name, p.priority) for p in b.pods]
