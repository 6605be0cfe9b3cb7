"""The volume plugins' verdicts in whole runs (real loader, scheduler, PV controller and
provisioner): VolumeBinding (missing claim, smallest static PV that fits, provisioning with the
selected-node annotation, Unreserve reverting its assumption), VolumeRestrictions (in-tree disk
conflicts), NodeVolumeLimits (inline migrated disks), VolumeZone, ephemeral volumes, and the
`storage_change` events the controllers' steps show as."""

from __future__ import annotations

from scheduler_core.api.storage_types import ANN_SELECTED_NODE
from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation


def node(name: str, zone: str = "", cpu: str = "4") -> str:
    labels = f"kubernetes.io/hostname: {name}" + (f", topology.kubernetes.io/zone: {zone}" if zone else "")
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{{labels}}}}}\n"
            f"status: {{capacity: {{cpu: '{cpu}', memory: 8Gi}}}}\n")


def pod(name: str, volumes: str, extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{extra}"
            "  containers: [{name: c, image: pause, resources: {requests: {cpu: 100m}}}]\n"
            f"  volumes:\n{volumes}")


def claim(name: str, size: str, cls: str = "local", extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}}}\n"
            f"spec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: {cls}\n"
            f"  resources: {{requests: {{storage: {size}}}}}\n{extra}")


def local_pv(name: str, size: str, host: str) -> str:
    return (f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\n"
            f"spec:\n  capacity: {{storage: {size}}}\n  accessModes: [ReadWriteOnce]\n"
            f"  storageClassName: local\n  local: {{path: /mnt/{name}}}\n"
            "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "
            f"[{{key: kubernetes.io/hostname, operator: In, values: [{host}]}}]}}]}}}}\n")


def cls(name: str, provisioner: str, mode: str = "WaitForFirstConsumer", extra: str = "") -> str:
    return (f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\n"
            f"provisioner: {provisioner}\nvolumeBindingMode: {mode}\n{extra}")


def run(*docs: str, record: bool = False, version: str | None = None) -> Simulation:
    sim = Simulation(load_scenario_text("---\n".join(docs)), record_events=record,
                     kubernetes_version=version)
    sim.run()
    return sim


def rec(sim: Simulation, key: str):
    return sim.scheduler.cluster.records[key]


def test_missing_claim_is_unresolvable_with_upstreams_text():
    sim = run(node("n1"), pod("p", "  - {name: d, persistentVolumeClaim: {claimName: nope}}\n"))
    r = rec(sim, "default/p")
    assert r.status == "Pending"
    assert r.message.startswith('0/1 nodes are available: persistentvolumeclaim "nope" not found.')


def test_wffc_binds_the_smallest_static_pv_that_fits_and_the_pv_controller_completes_it():
    sim = run(node("n1"), cls("local", "kubernetes.io/no-provisioner"),
              local_pv("big", "100Gi", "n1"), local_pv("small", "20Gi", "n1"), local_pv("tiny", "5Gi", "n1"),
              claim("c", "10Gi"), pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n"),
              record=True)
    assert rec(sim, "default/p").node == "n1"
    st = sim.scheduler.cluster.storage
    assert st.pvcs["default/c"].volume_name == "small" and st.pvcs["default/c"].phase == "Bound"
    assert st.pvs["small"].claim_ref.name == "c" and st.pvs["small"].phase == "Bound"
    assert st.pvs["big"].claim_ref is None and st.pvs["big"].phase == "Available"
    changes = [(e["kind"], e["name"], e["by"]) for e in sim.sink.events if e["type"] == "storage_change"]
    assert changes == [("PersistentVolume", "small", "VolumeBinding PreBind"),
                       ("PersistentVolume", "small", "persistentvolume-controller"),
                       ("PersistentVolumeClaim", "default/c", "persistentvolume-controller")]


def test_provisioning_annotates_the_selected_node_and_creates_a_zonal_pv():
    sim = run(node("a1", "a"), node("c1", "c", cpu="32"),
              cls("gp3", "ebs.csi.aws.com", extra="allowedTopologies:\n- matchLabelExpressions:\n"
                                                 "  - {key: topology.kubernetes.io/zone, values: [a]}\n"),
              claim("c", "10Gi", "gp3"), pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n"))
    assert rec(sim, "default/p").node == "a1"
    st = sim.scheduler.cluster.storage
    pvc = st.pvcs["default/c"]
    assert pvc.annotations[ANN_SELECTED_NODE] == "a1" and pvc.phase == "Bound"
    pv = st.pvs[pvc.volume_name]
    assert pv.csi_driver == "ebs.csi.aws.com" and pv.capacity == 10 * 2**30
    expr = pv.node_affinity.node_selector_terms[0].match_expressions[0]
    assert (expr.key, expr.values) == ("topology.kubernetes.io/zone", ("a",))


def test_no_provisioner_and_no_pv_leaves_the_pod_pending_with_bind_conflict():
    sim = run(node("n1"), node("n2"), cls("local", "kubernetes.io/no-provisioner"), claim("c", "1Gi"),
              pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n"))
    r = rec(sim, "default/p")
    assert r.status == "Pending"
    assert "2 node(s) didn't find available persistent volumes to bind" in r.message


def test_unreserve_reverts_the_assumed_binding():
    sim = Simulation(load_scenario_text("---\n".join([
        node("n1"), cls("local", "kubernetes.io/no-provisioner"), local_pv("v", "5Gi", "n1"),
        claim("c", "1Gi"), pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n")])))
    fwk = next(iter(sim.scheduler.profiles.values()))
    vb = fwk.plugins_map["VolumeBinding"]
    from scheduler_core.framework.cycle_state import CycleState

    pod_obj = sim.scheduler.cluster.pods["default/p"]
    state = CycleState()
    nodes = sim.scheduler.snapshot.list() or []
    sim.scheduler.cache.update_snapshot(sim.scheduler.snapshot)
    nodes = sim.scheduler.snapshot.list()
    _, st = vb.pre_filter(state, pod_obj, nodes)
    assert st is None
    assert vb.filter(state, pod_obj, nodes[0]) is None
    assert vb.reserve(state, pod_obj, "n1") is None
    assert vb.binder.pv_cache.get("v").claim_ref.name == "c"  # assumed
    assert sim.scheduler.cluster.storage.pvs["v"].claim_ref is None  # not written
    vb.unreserve(state, pod_obj, "n1")
    assert vb.binder.pv_cache.get("v").claim_ref is None


def test_in_tree_disk_conflict_and_read_only_sharing():
    gce = "  - {name: d, gcePersistentDisk: {pdName: disk-1%s}}\n"
    sim = run(node("n1"), pod("a", gce % "", "  nodeName: n1\n"), pod("b", gce % ""),
              pod("ro1", gce.replace("disk-1", "disk-2") % ", readOnly: true", "  nodeName: n1\n"),
              pod("ro2", gce.replace("disk-1", "disk-2") % ", readOnly: true"))
    assert rec(sim, "default/b").status == "Pending"
    assert "1 node(s) had no available disk" in rec(sim, "default/b").message
    assert rec(sim, "default/ro2").node == "n1"


def test_inline_ebs_volumes_count_against_the_csinode_limit():
    csinode = ("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\nspec:\n"
               "  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 1}}]\n")
    ebs = "  - {name: d, awsElasticBlockStore: {volumeID: %s}}\n"
    sim = run(node("n1"), csinode, pod("a", ebs % "vol-a", "  nodeName: n1\n"), pod("b", ebs % "vol-b"),
              pod("same", ebs % "vol-a"))
    assert "1 node(s) exceed max volume count" in rec(sim, "default/b").message
    # an EBS volume is never shared by two pods on a node (VolumeRestrictions)
    assert "1 node(s) had no available disk" in rec(sim, "default/same").message


def test_ephemeral_volume_gets_its_claim_from_the_controller():
    sim = run(node("n1"), cls("local", "kubernetes.io/no-provisioner"), local_pv("v", "5Gi", "n1"),
              pod("p", "  - name: scratch\n    ephemeral:\n      volumeClaimTemplate:\n        spec:\n"
                       "          accessModes: [ReadWriteOnce]\n          storageClassName: local\n"
                       "          resources: {requests: {storage: 1Gi}}\n"))
    assert rec(sim, "default/p").node == "n1"
    pvc = sim.scheduler.cluster.storage.pvcs["default/p-scratch"]
    assert pvc.owner_references[0].kind == "Pod" and pvc.volume_name == "v"


def test_pending_pod_is_requeued_when_its_claim_appears():
    sim = Simulation(load_scenario_text("---\n".join([
        node("n1"), pod("p", "  - {name: d, persistentVolumeClaim: {claimName: later}}\n")])))
    sim.run()
    assert rec(sim, "default/p").status == "Pending"
    sc = load_scenario_text(claim("later", "1Gi", "x", "  volumeName: pv-x\n") + "---\n" +
                            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-x}\nspec:\n"
                            "  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n"
                            "  storageClassName: x\n  csi: {driver: d, volumeHandle: h}\n")
    sim.apiserver.create_pv(sc.storage.pvs[0], by="user")
    sim.apiserver.create_pvc(sc.storage.pvcs[0], by="user")
    sim.run()
    assert rec(sim, "default/p").node == "n1"


def test_v130_bound_local_pv_narrows_the_nodes_at_prefilter():
    docs = [node("n1"), node("n2"), cls("local", "kubernetes.io/no-provisioner"), local_pv("v", "5Gi", "n1"),
            claim("c", "1Gi", extra="  volumeName: v\n"),
            pod("p", "  - {name: d, persistentVolumeClaim: {claimName: c}}\n", "  nodeSelector: {kubernetes.io/hostname: n2}\n")]
    new = rec(run(*docs), "default/p").message
    old = rec(run(*docs, version="v1.30"), "default/p").message
    assert "1 node(s) didn't match PersistentVolume's node affinity" in new
    assert "node(s) didn't match PersistentVolume's node affinity" not in old  # n2 never filtered
    assert old.startswith("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.")


def test_prefiltered_candidates_choose_what_find_matching_volume_chooses():
    """The per-cycle candidates (node-independent checks done once) pick, on every node, the
    same PV as upstream's FindMatchingVolume loop over all the class's PVs."""
    import random

    from scheduler_core.api.storage_types import ClaimRef, PersistentVolume, PersistentVolumeClaim
    from scheduler_core.api.types import (
        LabelSelector,
        Node,
        NodeSelector,
        NodeSelectorRequirement,
        NodeSelectorTerm,
    )
    from scheduler_core.framework.plugins.volumebinding.binder import (
        claim_candidates,
        find_matching_volume,
        match_on_node,
    )

    rng = random.Random(5)
    nodes = [Node(name=f"n{i}", labels={"kubernetes.io/hostname": f"n{i}", "zone": f"z{i % 3}"}) for i in range(6)]
    for _ in range(300):
        claim = PersistentVolumeClaim(name="c", uid="u-c", access_modes=tuple(rng.sample(["ReadWriteOnce", "ReadOnlyMany"], 1)),
                                      storage_class_name="s", request=rng.choice([1, 5, 10]),
                                      selector=rng.choice([None, LabelSelector(match_labels={"tier": "a"})]))
        pvs = []
        for j in range(rng.randint(0, 8)):
            aff = rng.choice([None, NodeSelector([NodeSelectorTerm([NodeSelectorRequirement(
                rng.choice(["kubernetes.io/hostname", "zone"]), "In", (rng.choice(["n1", "n2", "z0", "z1"]),))])])])
            ref = rng.choice([None, None, ClaimRef("default", "c", rng.choice(["", "u-c", "other"])),
                              ClaimRef("default", "d")])
            pvs.append(PersistentVolume(name=f"pv{j}", capacity=rng.choice([1, 5, 10, 20]),
                                        access_modes=tuple(rng.sample(["ReadWriteOnce", "ReadOnlyMany"], rng.randint(1, 2))),
                                        storage_class_name=rng.choice(["s", "s", "t"]), node_affinity=aff, claim_ref=ref,
                                        labels=rng.choice([{}, {"tier": "a"}]), phase=rng.choice(["Available", "Bound"]),
                                        source="csi"))
        cands = claim_candidates(claim, pvs)
        for node in nodes:
            want = find_matching_volume(claim, pvs, node, {}, True)
            got = match_on_node(claim, cands, node, {})
            assert (want.name if want else None) == (got.name if got else None)
