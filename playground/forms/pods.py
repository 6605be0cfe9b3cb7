"""Pod forms: the pod fields shared by one pod and a Deployment-like batch of pods."""

from __future__ import annotations

from typing import Any

from django import forms

from playground.forms.base import KEY_VALUE_HELP, TEXTAREA, ManifestForm
from playground.forms.parsing import (
    format_key_values,
    format_tolerations,
    parse_key_values,
    parse_tolerations,
    set_or_drop,
)
from playground.services.scenario_bulk import MAX_BULK, PAUSE_IMAGE
from playground.services.scenario_validation import ScenarioInvalid

TOPOLOGY_CHOICES = [
    ("", "\u2014"),
    ("none", "none"),
    ("kubernetes.io/hostname", "per node (kubernetes.io/hostname)"),
    ("topology.kubernetes.io/zone", "per zone (topology.kubernetes.io/zone)"),
]


class PodFieldsMixin(forms.Form):
    """The pod template fields shared by the pod form and the batch form."""

    namespace = forms.CharField(max_length=63, initial="default")
    cpu = forms.CharField(max_length=64, required=False, label="CPU request", help_text="e.g. 500m")
    memory = forms.CharField(max_length=64, required=False, label="Memory request", help_text="e.g. 1Gi")
    priority_class_name = forms.CharField(max_length=253, required=False, label="priorityClassName")
    labels = forms.CharField(required=False, widget=TEXTAREA, help_text=KEY_VALUE_HELP)
    node_selector = forms.CharField(required=False, widget=TEXTAREA, label="nodeSelector", help_text=KEY_VALUE_HELP)
    tolerations = forms.CharField(
        required=False,
        widget=TEXTAREA,
        help_text="key=value:Effect, key:Effect, key or * per line; NoExecute may end in :seconds",
    )
    scheduler_name = forms.CharField(max_length=253, required=False, label="schedulerName")
    host_port = forms.IntegerField(
        required=False, min_value=1, max_value=65535, label="hostPort", help_text="the first container's host port"
    )
    scheduling_gates = forms.CharField(
        max_length=1000, required=False, label="schedulingGates", help_text="gate names, comma-separated"
    )
    anti_affinity = forms.ChoiceField(
        choices=TOPOLOGY_CHOICES,
        required=False,
        label="Anti-affinity to pods with the same labels",
        help_text="required podAntiAffinity on this topology key (\u2014 keeps what the YAML says)",
    )
    spread = forms.ChoiceField(
        choices=TOPOLOGY_CHOICES,
        required=False,
        label="Spread pods with the same labels",
        help_text="topologySpreadConstraint maxSkew 1, DoNotSchedule (\u2014 keeps what the YAML says)",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        wants_selector = data.get("anti_affinity") not in ("", "none", None) or data.get("spread") not in (
            "",
            "none",
            None,
        )
        if wants_selector and not data.get("labels"):
            self.add_error("labels", "Anti-affinity and spreading select pods by these labels: add at least one.")
        return data

    def clean_scheduling_gates(self) -> list[dict[str, str]]:
        return [{"name": g.strip()} for g in self.cleaned_data["scheduling_gates"].split(",") if g.strip()]

    def clean_labels(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["labels"])

    def clean_node_selector(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["node_selector"])

    def clean_tolerations(self) -> list[dict[str, Any]]:
        return parse_tolerations(self.cleaned_data["tolerations"])

    def apply_pod_fields(self, manifest: dict[str, Any]) -> dict[str, Any]:
        data = self.cleaned_data
        manifest["metadata"]["namespace"] = data["namespace"].strip() or "default"
        set_or_drop(manifest["metadata"], "labels", data["labels"])
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        containers = spec.get("containers") if isinstance(spec.get("containers"), list) else []
        if not containers or not isinstance(containers[0], dict):
            containers = [{"name": "app", "image": PAUSE_IMAGE}] + containers[1:]
        first = containers[0]
        resources = first.get("resources") if isinstance(first.get("resources"), dict) else {}
        requests = resources.get("requests") if isinstance(resources.get("requests"), dict) else {}
        set_or_drop(requests, "cpu", data["cpu"].strip())
        set_or_drop(requests, "memory", data["memory"].strip())
        set_or_drop(resources, "requests", requests)
        set_or_drop(first, "resources", resources)
        spec["containers"] = containers
        set_or_drop(spec, "priorityClassName", data["priority_class_name"].strip())
        set_or_drop(spec, "nodeSelector", data["node_selector"])
        set_or_drop(spec, "tolerations", data["tolerations"])
        set_or_drop(spec, "schedulerName", data["scheduler_name"].strip())
        set_or_drop(spec, "schedulingGates", data["scheduling_gates"])
        ports = [p for p in first.get("ports") or [] if isinstance(p, dict) and not p.get("hostPort")]
        if data.get("host_port"):
            ports.insert(0, {"containerPort": data["host_port"], "hostPort": data["host_port"]})
        set_or_drop(first, "ports", ports)
        selector = {"matchLabels": dict(data["labels"])} if data["labels"] else None
        if data.get("anti_affinity"):
            affinity = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
            if data["anti_affinity"] == "none":
                affinity.pop("podAntiAffinity", None)
            else:
                affinity["podAntiAffinity"] = {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": selector, "topologyKey": data["anti_affinity"]}
                    ]
                }
            set_or_drop(spec, "affinity", affinity)
        if data.get("spread"):
            constraints = []
            if data["spread"] != "none":
                constraints = [
                    {
                        "maxSkew": 1,
                        "topologyKey": data["spread"],
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": selector,
                    }
                ]
            set_or_drop(spec, "topologySpreadConstraints", constraints)
        manifest["spec"] = spec
        return manifest

    @staticmethod
    def pod_initial(manifest: dict[str, Any]) -> dict[str, Any]:
        metadata = manifest.get("metadata") or {}
        spec = manifest.get("spec") or {}
        containers = spec.get("containers") or [{}]
        first = containers[0] if isinstance(containers[0], dict) else {}
        requests = (first.get("resources") or {}).get("requests") or {}
        return {
            "name": metadata.get("name", ""),
            "namespace": metadata.get("namespace", "default"),
            "cpu": str(requests.get("cpu", "")),
            "memory": str(requests.get("memory", "")),
            "priority_class_name": spec.get("priorityClassName", ""),
            "labels": format_key_values(metadata.get("labels")),
            "node_selector": format_key_values(spec.get("nodeSelector")),
            "tolerations": format_tolerations(spec.get("tolerations")),
            "scheduler_name": spec.get("schedulerName", ""),
            "host_port": next((p.get("hostPort") for p in first.get("ports") or [] if p.get("hostPort")), None),
            "scheduling_gates": ", ".join(g.get("name", "") for g in spec.get("schedulingGates") or []),
        }


class PodForm(ManifestForm, PodFieldsMixin):
    kind = "Pod"
    field_paths = (
        ("metadata.name", "name"),
        ("metadata.namespace", "namespace"),
        ("metadata.labels", "labels"),
        ("spec.containers[0].resources.requests.cpu", "cpu"),
        ("spec.containers[0].resources.requests.memory", "memory"),
        ("spec.priorityClassName", "priority_class_name"),
        ("spec.nodeSelector", "node_selector"),
        ("spec.tolerations", "tolerations"),
        ("spec.schedulerName", "scheduler_name"),
        ("spec.schedulingGates", "scheduling_gates"),
        ("spec.containers[0].ports", "host_port"),
        ("spec.affinity.podAntiAffinity", "anti_affinity"),
        ("spec.topologySpreadConstraints", "spread"),
    )

    name = forms.CharField(max_length=253)
    field_order = ["name", "namespace", "cpu", "memory", "priority_class_name", "labels"]

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        manifest = self._start(base)
        manifest["metadata"]["name"] = self.cleaned_data["name"].strip()
        return self.apply_pod_fields(manifest)

    @classmethod
    def initial_from(cls, manifest: dict[str, Any]) -> dict[str, Any]:
        return cls.pod_initial(manifest)


class PodBatchForm(PodFieldsMixin):
    count = forms.IntegerField(min_value=1, max_value=MAX_BULK, initial=3, label="Replicas")
    name = forms.SlugField(max_length=50, initial="web", label="Deployment name")
    with_replicaset = forms.BooleanField(
        required=False, initial=True, label="Also add a ReplicaSet selecting them (default spreading groups them)"
    )
    field_order = ["count", "name", "namespace", "cpu", "memory"]

    def pod_template(self) -> dict[str, Any]:
        manifest: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {}}
        return self.apply_pod_fields(manifest)

    def add_scenario_error(self, error: ScenarioInvalid) -> None:
        self.add_error("count" if error.field == "count" else None, error.message)
