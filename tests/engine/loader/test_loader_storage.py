"""The storage kinds and pod volumes: accepted with the apiserver's defaults, refused with a
located error (document, kind, name, field) when invalid; a claim naming a missing class or PV
is not a load error (the scheduler reports it)."""

from __future__ import annotations

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.storage_types import ANN_BIND_COMPLETED

WFFC = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
"""
IMMEDIATE = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [a, b]}
"""
PV = """\
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/d}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
"""


def pvc(name: str = "c1", extra: str = "", size: str = "5Gi") -> str:
    return ("apiVersion: v1\nkind: PersistentVolumeClaim\n"
            f"metadata: {{name: {name}}}\n"
            "spec:\n  accessModes: [ReadWriteOnce]\n"
            f"  resources: {{requests: {{storage: {size}}}}}\n{extra}")


CSINODE = """\
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers:
  - {name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 3}}
"""
CSIDRIVER = """\
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true}
"""


def err(*docs: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(*docs)
    return info.value


def test_storage_kinds_load_with_defaults_and_admission():
    sc = load(NODE, WFFC, IMMEDIATE, PV, pvc("c1"), pvc("c2", "  volumeName: pv1\n"), CSINODE, CSIDRIVER,
              pod("volumes:\n- name: data\n  persistentVolumeClaim: {claimName: c1}\n- name: tmp\n"))
    st = sc.storage
    assert [c.volume_binding_mode for c in st.classes] == ["WaitForFirstConsumer", "Immediate"]
    assert st.classes[1].allowed_topologies[0].match_label_expressions == [
        ("topology.kubernetes.io/zone", ("a", "b"))]
    c1, c2 = st.pvcs
    assert c1.storage_class_name == "local"  # DefaultStorageClass admission
    assert c1.request == 5 * 2**30 and c1.phase == "Pending"
    # a claim written with volumeName starts bound, its PV claimed by it
    assert c2.phase == "Bound" and ANN_BIND_COMPLETED in c2.annotations
    assert st.pvs[0].phase == "Bound" and st.pvs[0].claim_ref.name == "c2"
    assert st.csi_nodes[0].driver_limits == {"ebs.csi.aws.com": 3}
    vols = sc.pods[0].volumes
    assert [(v.name, v.source, v.claim_name) for v in vols] == [
        ("data", "persistentVolumeClaim", "c1"), ("tmp", "emptyDir", "")]


def test_claim_naming_missing_class_or_volume_is_not_a_load_error():
    sc = load(NODE, pvc("c1", "  storageClassName: nope\n"), pvc("c2", "  volumeName: gone\n"))
    assert sc.storage.pvcs[0].storage_class_name == "nope"
    assert sc.storage.pvcs[1].volume_name == "gone"


@pytest.mark.parametrize("docs,where,reason", [
    ([pvc(size="-1Gi")], (1, "PersistentVolumeClaim", "default/c1", "spec.resources.requests[storage]"),
     'Invalid value: "-1Gi": must be greater than or equal to 0'),
    ([pvc(size="0")], (1, "PersistentVolumeClaim", "default/c1", "spec.resources.requests[storage]"),
     'Invalid value: "0": must be greater than zero'),
    ([pvc(size="lots")], (1, "PersistentVolumeClaim", "default/c1", "spec.resources.requests[storage]"),
     'invalid quantity "lots"'),
    ([WFFC.replace("WaitForFirstConsumer", "Later")], (1, "StorageClass", "local", "volumeBindingMode"),
     'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"'),
    ([WFFC.replace("provisioner: kubernetes.io/no-provisioner\n", "")], (1, "StorageClass", "local",
                                                                          "provisioner"), "Required value"),
    ([PV.replace("  local: {path: /mnt/d}\n", "")], (1, "PersistentVolume", "pv1", "spec"),
     "Required value: must specify a volume type"),
    ([PV.split("  nodeAffinity")[0]], (1, "PersistentVolume", "pv1", "spec.nodeAffinity"),
     "Required value: Local volume requires node affinity"),
    ([PV.replace("ReadWriteOnce", "ReadWriteSometimes")], (1, "PersistentVolume", "pv1", "spec.accessModes[0]"),
     'Unsupported value: "ReadWriteSometimes"'),
    ([PV.replace("storage: 10Gi", "storage: -10Gi")], (1, "PersistentVolume", "pv1", "spec.capacity[storage]"),
     "must be greater than or equal to 0"),
    ([CSINODE.replace("count: 3", "count: -1")], (1, "CSINode", "n1", "spec.drivers[0].allocatable.count"),
     "must be greater than or equal to 0"),
    ([NODE, pod("volumes:\n- name: a\n  persistentVolumeClaim: {}\n")],
     (2, "Pod", "default/p", "spec.volumes[0].persistentVolumeClaim.claimName"), "Required value"),
    ([NODE, pod("volumes:\n- name: a\n  emptyDir: {}\n- name: a\n  emptyDir: {}\n")],
     (2, "Pod", "default/p", "spec.volumes[1].name"), 'Duplicate value: "a"'),
    ([NODE, pod("volumes:\n- name: a\n  emptyDir: {}\n  persistentVolumeClaim: {claimName: x}\n")],
     (2, "Pod", "default/p", "spec.volumes[0].emptyDir"), "may not specify more than 1 volume type"),
])
def test_bad_storage_documents_are_refused_with_a_located_error(docs, where, reason):
    e = err(*docs)
    assert (e.document, e.kind, e.name, e.field) == where
    assert reason in e.reason


@pytest.mark.parametrize("doc,field,suggestion", [
    (WFFC.replace("volumeBindingMode", "volumeBindingMdoe"), "volumeBindingMdoe", "volumeBindingMode"),
    (pvc(extra="  storageClasName: x\n"), "spec.storageClasName", "storageClassName"),
    (PV.replace("capacity:", "capacty:"), "spec.capacty", "capacity"),
    (pod("volumes:\n- name: a\n  persistentVolumeClam: {claimName: x}\n"), "spec.volumes[0].persistentVolumeClam",
     "persistentVolumeClaim"),
])
def test_misspelled_storage_fields_get_did_you_mean(doc, field, suggestion):
    e = err(doc)
    assert e.field == field and f'did you mean "{suggestion}"?' in e.reason


def test_statefulset_volume_claim_templates_create_claims_and_pod_volumes():
    sts = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
"""
    sc = load(NODE, WFFC, sts)
    assert sorted(c.name for c in sc.storage.pvcs) == ["data-db-0", "data-db-1"]
    assert all(c.storage_class_name == "local" for c in sc.storage.pvcs)
    by_pod = {p.name: [(v.name, v.claim_name) for v in p.volumes] for p in sc.pods}
    assert by_pod == {"db-0": [("data", "data-db-0")], "db-1": [("data", "data-db-1")]}


def test_storage_round_trips_through_export():
    from pathlib import Path

    from scheduler_core.api.export import dump_scenario
    from scheduler_core.loader import load_scenario_file, load_scenario_text

    cases = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "storage-dra"
    files = sorted(cases.glob("s*.yaml"))
    extra = load(NODE, WFFC, IMMEDIATE, PV, pvc("c1"), pvc("c2", "  volumeName: pv1\n"), CSINODE, CSIDRIVER,
                 pod("volumes:\n- name: a\n  persistentVolumeClaim: {claimName: c1}\n- name: e\n"
                     "  ephemeral:\n    volumeClaimTemplate:\n      spec:\n        accessModes: [ReadWriteOnce]\n"
                     "        resources: {requests: {storage: 1Gi}}\n- name: g\n  gcePersistentDisk: {pdName: d}\n"))
    for sc in [extra, *(load_scenario_file(f) for f in files)]:
        again = load_scenario_text(dump_scenario(sc), source=sc.source)
        assert again.storage == sc.storage and again.pods == sc.pods
        assert again == sc


def test_with_two_default_classes_a_claim_gets_the_first_by_name():
    other = WFFC.replace("name: local", "name: alpha")
    sc = load(WFFC, other, pvc("c1"))
    assert sc.storage.pvcs[0].storage_class_name == "alpha"
