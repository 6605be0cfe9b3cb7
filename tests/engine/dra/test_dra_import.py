"""A kubectl dump of a GPU cluster imports with its DRA objects, and its running pod's generated
claim keeps holding its device."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.loader import load_scenario_file
from scheduler_core.simulation import Simulation

DUMP = Path(__file__).resolve().parents[2] / "fixtures" / "kubectl-dra-gpu.yaml"


def test_kubectl_dump_with_dra_objects_imports_and_runs() -> None:
    sc = load_scenario_file(DUMP)
    assert sc.load_summary.source_format == "kubectl-list"
    assert [c.name for c in sc.device_classes] == ["gpu.nvidia.com"]
    assert len(sc.resource_slices) == 2 and len(sc.resource_claim_templates) == 1
    (claim,) = sc.resource_claims
    trainer0 = next(p for p in sc.pods if p.name == "trainer-0")
    # The dump's UIDs are replaced by the scenario's: references follow the pod by name.
    assert claim.owner_references[0].uid == trainer0.uid
    assert claim.reserved_for[0].uid == trainer0.uid
    assert trainer0.resource_claim_statuses == {"gpu": "trainer-0-gpu-k8s7z"}

    sim = Simulation(sc)
    assert sim.run()
    pods = {p["name"]: p for p in sim.result(True)["pods"]}
    # gpu-a's gpu-0 is held by trainer-0: one pod gets gpu-a's gpu-1, one gpu-b's gpu-0.
    assert sorted(pods[n]["node"] for n in ("trainer-1", "trainer-2")) == ["gpu-a", "gpu-b"]
    assert pods["trainer-3"]["status"] == "Pending"
    assert pods["trainer-3"]["message"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")
    claims = sim.scheduler.cluster.resource_claims
    assert "ml/trainer-0-gpu-k8s7z" in claims and "ml/trainer-0-gpu" not in claims
    held = sorted((r.pool, r.device) for c in claims.values() if c.allocation for r in c.allocation.results)
    assert held == [("gpu-a", "gpu-0"), ("gpu-a", "gpu-1"), ("gpu-b", "gpu-0")]
