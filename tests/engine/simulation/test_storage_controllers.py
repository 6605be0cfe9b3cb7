"""The controllers the volume plugins rely on, in whole runs on the virtual clock: the StatefulSet
controller's claims, the PV controller completing VolumeBinding's bindings, the provisioner
creating a volume in the selected node's topology, the ephemeral volume controller and the
garbage collector; each step a `storage_change` event, next to the queue's reactions; and a
checkpoint in the middle of it restoring to the same outcome."""

from __future__ import annotations

from scheduler_core.loader import load_scenario_text
from scheduler_core.simulation import Simulation

NODES = "".join(
    f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}, "
    f"topology.kubernetes.io/zone: {z}}}}}\nstatus: {{capacity: {{cpu: '{c}', memory: 16Gi}}}}\n"
    for n, z, c in (("a1", "zone-a", "4"), ("b1", "zone-b", "4"), ("c1", "zone-c", "16")))

PROVISIONED_STS = NODES + """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [zone-a, zone-b]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg}
spec:
  replicas: 2
  selector: {matchLabels: {app: pg}}
  template:
    metadata: {labels: {app: pg}}
    spec:
      containers: [{name: pg, image: postgres, resources: {requests: {cpu: '3'}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
"""


def _run(text: str, **kw) -> Simulation:
    sim = Simulation(load_scenario_text(text), record_events=True, **kw)
    sim.run()
    return sim


def test_statefulset_claims_are_provisioned_in_the_pods_zones_and_bound():
    sim = _run(PROVISIONED_STS)
    recs = sim.scheduler.cluster.records
    # c1 is roomiest but outside allowedTopologies; each pod needs 3 of a node's 4 cpus
    assert {recs["default/pg-0"].node, recs["default/pg-1"].node} == {"a1", "b1"}
    st = sim.scheduler.cluster.storage
    for i in (0, 1):
        pvc = st.pvcs[f"default/data-pg-{i}"]
        node = recs[f"default/pg-{i}"].node
        assert pvc.storage_class_name == "gp3" and pvc.phase == "Bound"
        assert pvc.annotations["volume.kubernetes.io/selected-node"] == node
        zone = sim.scheduler.cluster.nodes[node].labels["topology.kubernetes.io/zone"]
        pv = st.pvs[pvc.volume_name]
        assert pv.node_affinity.node_selector_terms[0].match_expressions[0].values == (zone,)


def test_each_controller_step_is_an_event_between_prebind_and_bind():
    sim = _run(PROVISIONED_STS)
    ev = [e for e in sim.sink.events if e["type"] in ("storage_change", "bound")]
    first = [(e["type"], e.get("kind"), e.get("by")) for e in ev[:4]]
    assert first == [
        ("storage_change", "PersistentVolumeClaim", "VolumeBinding PreBind"),
        ("storage_change", "PersistentVolume", "provisioner"),
        ("storage_change", "PersistentVolumeClaim", "persistentvolume-controller"),
        ("bound", None, None),
    ]


def test_a_checkpoint_mid_binding_restores_to_the_same_outcome():
    sim = Simulation(load_scenario_text(PROVISIONED_STS))
    sim.step()
    again = Simulation.restore(sim.checkpoint())
    sim.run()
    again.run()
    assert again.result(True) == sim.result(True)
    assert again.scheduler.cluster.storage == sim.scheduler.cluster.storage


def test_ephemeral_claims_are_created_with_the_pod_and_collected_with_it():
    text = NODES + """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Pod
metadata: {name: job}
spec:
  containers: [{name: c, image: busybox}]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          storageClassName: gp3
          resources: {requests: {storage: 1Gi}}
"""
    sim = _run(text)
    st = sim.scheduler.cluster.storage
    assert st.pvcs["default/job-scratch"].phase == "Bound"
    sim.apply_manifest_action({"action": "deletePod", "pod": "default/job"})
    assert "default/job-scratch" not in st.pvcs
    by = [e["by"] for e in sim.sink.events if e["type"] == "storage_change"]
    assert by[0] == "ephemeral-volume-controller" and by[-1] == "garbage-collector"


def test_a_claim_bound_later_requeues_its_pod():
    text = NODES + """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: now}
provisioner: ebs.csi.aws.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: now
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
"""
    sim = _run(text)
    assert sim.scheduler.cluster.records["default/app"].status == "Pending"
    s = sim.apiserver
    pvc = s.cluster.storage.pvcs["default/data"]
    from scheduler_core.api.storage_types import ClaimRef, PersistentVolume

    s.create_pv(PersistentVolume(name="pv-1", capacity=pvc.request, access_modes=pvc.access_modes,
                                 storage_class_name="now", source="csi", csi_driver="ebs.csi.aws.com",
                                 volume_handle="v1", claim_ref=ClaimRef("default", "data", pvc.uid)),
                by="provisioner")
    assert s.cluster.storage.pvcs["default/data"].phase == "Bound"
    moves = [e for e in sim.sink.events if e["type"] == "queue_move" and e["pod"] == "default/app"]
    # the new PV (VolumeBinding registered PV Add without a hint) moves the pod out of the pool
    assert moves[-1]["event"] == "PersistentVolumeAdd" and moves[-1]["from"] == "unschedulable"
    sim.run()
    assert sim.scheduler.cluster.records["default/app"].status == "Bound"
