"""The fields of the storage kinds (core/v1 PersistentVolume, PersistentVolumeClaim and a pod's
volumes; storage.k8s.io/v1 StorageClass, CSINode, CSIDriver, CSIStorageCapacity), in the form schema.py describes.

The volume sources the volume plugins compare (persistentVolumeClaim, ephemeral, csi, the
in-tree disks, local) have their fields checked; the other sources (configMap, secret,
emptyDir, nfs, projected...) are accepted as they are: they do not affect scheduling.
"""

from __future__ import annotations

from typing import Any

__all__ = ["storage_schemas", "STORAGE_NAMESPACED_KINDS"]

STORAGE_NAMESPACED_KINDS = frozenset({"PersistentVolumeClaim", "CSIStorageCapacity"})


def storage_schemas(SIMULATED: Any, NOT_SIMULATED: Any, OBJECT_META: dict[str, Any],  # noqa: N803
                    LABEL_SELECTOR: dict[str, Any], NODE_SELECTOR_TERM: dict[str, Any]) -> dict[str, Any]:
    """The storage kinds' schemas, a pod volume's, a claim template's and the sources', built
    from schema.py's pieces (passed in: schema.py imports this module, not the reverse)."""
    def _ignored(*names: str) -> dict[str, Any]:
        return dict.fromkeys(names, NOT_SIMULATED)


    _SECRET_REF = SIMULATED  # secret references are free-form here (never read)

    _GCE_PD = {"pdName": SIMULATED, "fsType": SIMULATED, "partition": SIMULATED, "readOnly": SIMULATED}
    _AWS_EBS = {"volumeID": SIMULATED, "fsType": SIMULATED, "partition": SIMULATED, "readOnly": SIMULATED}
    _ISCSI = {"targetPortal": SIMULATED, "iqn": SIMULATED, "lun": SIMULATED, "iscsiInterface": SIMULATED,
              "fsType": SIMULATED, "readOnly": SIMULATED, "portals": SIMULATED,
              "chapAuthDiscovery": SIMULATED, "chapAuthSession": SIMULATED, "secretRef": _SECRET_REF,
              "initiatorName": SIMULATED}
    _RBD = {"monitors": SIMULATED, "image": SIMULATED, "fsType": SIMULATED, "pool": SIMULATED,
            "user": SIMULATED, "keyring": SIMULATED, "secretRef": _SECRET_REF, "readOnly": SIMULATED}
    _AZURE_DISK = {"diskName": SIMULATED, "diskURI": SIMULATED, "cachingMode": SIMULATED,
                   "fsType": SIMULATED, "readOnly": SIMULATED, "kind": SIMULATED}
    _CINDER = {"volumeID": SIMULATED, "fsType": SIMULATED, "readOnly": SIMULATED, "secretRef": _SECRET_REF}
    _CSI_INLINE = {"driver": SIMULATED, "readOnly": SIMULATED, "fsType": SIMULATED,
                   "volumeAttributes": SIMULATED, "nodePublishSecretRef": _SECRET_REF}
    _CSI_PV = {"driver": SIMULATED, "volumeHandle": SIMULATED, "readOnly": SIMULATED, "fsType": SIMULATED,
               "volumeAttributes": SIMULATED, "controllerPublishSecretRef": _SECRET_REF,
               "nodeStageSecretRef": _SECRET_REF, "nodePublishSecretRef": _SECRET_REF,
               "controllerExpandSecretRef": _SECRET_REF, "nodeExpandSecretRef": _SECRET_REF}

    PVC_SPEC = {
        "accessModes": SIMULATED, "selector": LABEL_SELECTOR,
        "resources": {"requests": SIMULATED, "limits": SIMULATED},
        "volumeName": SIMULATED, "storageClassName": SIMULATED, "volumeMode": SIMULATED,
        "volumeAttributesClassName": SIMULATED,
        **_ignored("dataSource", "dataSourceRef"),
    }
    PVC_TEMPLATE = {"metadata": OBJECT_META, "spec": PVC_SPEC}

    # Volume sources a pod may use; those the plugins read have their fields checked.
    POD_VOLUME_SOURCES: dict[str, Any] = {
        "persistentVolumeClaim": {"claimName": SIMULATED, "readOnly": SIMULATED},
        "ephemeral": {"volumeClaimTemplate": PVC_TEMPLATE},
        "csi": _CSI_INLINE,
        "gcePersistentDisk": _GCE_PD, "awsElasticBlockStore": _AWS_EBS, "iscsi": _ISCSI, "rbd": _RBD,
        "azureDisk": _AZURE_DISK, "cinder": _CINDER,
        **dict.fromkeys(("hostPath", "emptyDir", "gitRepo", "secret", "nfs", "glusterfs", "flexVolume",
                         "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
                         "vsphereVolume", "quobyte", "photonPersistentDisk", "projected",
                         "portworxVolume", "scaleIO", "storageos", "image"), SIMULATED),
    }
    VOLUME = {"name": SIMULATED, **POD_VOLUME_SOURCES}

    PV_SOURCES: dict[str, Any] = {
        "csi": _CSI_PV, "local": {"path": SIMULATED, "fsType": SIMULATED},
        "gcePersistentDisk": _GCE_PD, "awsElasticBlockStore": _AWS_EBS, "iscsi": _ISCSI, "rbd": _RBD,
        "azureDisk": _AZURE_DISK, "cinder": _CINDER,
        **dict.fromkeys(("hostPath", "glusterfs", "nfs", "cephfs", "fc", "flocker", "flexVolume",
                         "azureFile", "vsphereVolume", "quobyte", "photonPersistentDisk",
                         "portworxVolume", "scaleIO", "storageos"), SIMULATED),
    }

    _TOP = {"apiVersion": SIMULATED, "kind": SIMULATED, "metadata": OBJECT_META}

    STORAGE_KIND_SCHEMAS: dict[str, dict[str, Any]] = {
        "PersistentVolume": {
            **_TOP,
            "spec": {
                "capacity": SIMULATED, "accessModes": SIMULATED, "storageClassName": SIMULATED,
                "volumeMode": SIMULATED, "volumeAttributesClassName": SIMULATED,
                "persistentVolumeReclaimPolicy": SIMULATED,
                "nodeAffinity": {"required": {"nodeSelectorTerms": [NODE_SELECTOR_TERM]}},
                "claimRef": {"kind": SIMULATED, "namespace": SIMULATED, "name": SIMULATED,
                             "uid": SIMULATED, "apiVersion": SIMULATED,
                             **_ignored("resourceVersion", "fieldPath")},
                **PV_SOURCES,
                **_ignored("mountOptions"),
            },
            "status": {"phase": SIMULATED, **_ignored("message", "reason", "lastPhaseTransitionTime")},
        },
        "PersistentVolumeClaim": {
            **_TOP, "spec": PVC_SPEC,
            "status": {"phase": SIMULATED,
                       **_ignored("accessModes", "capacity", "conditions", "allocatedResources",
                                  "allocatedResourceStatuses", "resizeStatus",
                                  "currentVolumeAttributesClassName", "modifyVolumeStatus")},
        },
        "StorageClass": {
            **_TOP, "provisioner": SIMULATED, "parameters": SIMULATED, "reclaimPolicy": SIMULATED,
            "volumeBindingMode": SIMULATED,
            "allowedTopologies": [{"matchLabelExpressions": [{"key": SIMULATED, "values": SIMULATED}]}],
            **_ignored("mountOptions", "allowVolumeExpansion"),
        },
        "CSINode": {
            **_TOP,
            "spec": {"drivers": [{"name": SIMULATED, "nodeID": SIMULATED, "topologyKeys": SIMULATED,
                                  "allocatable": {"count": SIMULATED}}]},
        },
        "CSIDriver": {
            **_TOP,
            "spec": {"attachRequired": SIMULATED, "storageCapacity": SIMULATED,
                     **_ignored("podInfoOnMount", "volumeLifecycleModes", "fsGroupPolicy",
                                "tokenRequests", "requiresRepublish", "seLinuxMount",
                                "nodeAllocatableUpdatePeriodSeconds", "serviceAccountTokenInSecrets")},
        },
        "CSIStorageCapacity": {
            **_TOP, "storageClassName": SIMULATED, "nodeTopology": LABEL_SELECTOR,
            "capacity": SIMULATED, "maximumVolumeSize": SIMULATED,
        },
    }

    return {"kinds": STORAGE_KIND_SCHEMAS, "volume": VOLUME, "pvc_template": PVC_TEMPLATE,
            "pod_volume_sources": POD_VOLUME_SOURCES, "pv_sources": PV_SOURCES}
