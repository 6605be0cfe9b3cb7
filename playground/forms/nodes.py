"""Node forms: one node, and many identical nodes at once."""

from __future__ import annotations

from typing import Any

from django import forms

from playground.forms.base import KEY_VALUE_HELP, TEXTAREA, ManifestForm
from playground.forms.parsing import (
    format_key_values,
    format_taints,
    parse_key_values,
    parse_taints,
    set_or_drop,
)
from playground.services.scenario_bulk import HOSTNAME_LABEL, MAX_BULK, ZONE_LABEL, NodeTemplate
from playground.services.scenario_validation import ScenarioInvalid


class NodeForm(ManifestForm):
    kind = "Node"
    field_paths = (
        ("metadata.name", "name"),
        (f"metadata.labels.{ZONE_LABEL}", "zone"),
        ("metadata.labels", "labels"),
        ("status.capacity.cpu", "cpu"),
        ("status.allocatable.cpu", "cpu"),
        ("status.capacity.memory", "memory"),
        ("status.allocatable.memory", "memory"),
        ("status.capacity.pods", "pods"),
        ("status.allocatable.pods", "pods"),
        ("spec.taints", "taints"),
        ("spec.unschedulable", "unschedulable"),
    )

    name = forms.CharField(max_length=253)
    cpu = forms.CharField(max_length=64, required=False, initial="4", label="CPU", help_text="cores, e.g. 4 or 3500m")
    memory = forms.CharField(max_length=64, required=False, initial="16Gi", help_text="e.g. 16Gi")
    pods = forms.IntegerField(required=False, initial=110, min_value=0)
    zone = forms.CharField(max_length=63, required=False, help_text=ZONE_LABEL)
    labels = forms.CharField(required=False, widget=TEXTAREA, help_text=KEY_VALUE_HELP)
    taints = forms.CharField(
        required=False, widget=TEXTAREA, help_text="key=value:Effect per line (NoSchedule, PreferNoSchedule, NoExecute)"
    )
    unschedulable = forms.BooleanField(required=False, label="Cordoned (unschedulable)")

    def clean_labels(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["labels"])

    def clean_taints(self) -> list[dict[str, str]]:
        return parse_taints(self.cleaned_data["taints"])

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        data = self.cleaned_data
        manifest = self._start(base)
        name = data["name"].strip()
        manifest["metadata"]["name"] = name
        labels = dict(data["labels"])
        if base is None:
            labels.setdefault(HOSTNAME_LABEL, name)
        if data["zone"].strip():
            labels[ZONE_LABEL] = data["zone"].strip()
        set_or_drop(manifest["metadata"], "labels", labels)
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        set_or_drop(spec, "taints", data["taints"])
        set_or_drop(spec, "unschedulable", True if data["unschedulable"] else None)
        set_or_drop(manifest, "spec", spec)
        status = manifest.get("status") if isinstance(manifest.get("status"), dict) else {}
        values = {"cpu": data["cpu"].strip(), "memory": data["memory"].strip()}
        values["pods"] = "" if data["pods"] is None else str(data["pods"])
        for section in ("capacity", "allocatable"):
            resources = status.get(section) if isinstance(status.get(section), dict) else {}
            if section == "allocatable" and "allocatable" not in status and base is not None:
                continue  # allocatable defaults to capacity: leave it absent when it was
            for key, value in values.items():
                set_or_drop(resources, key, value)
            status[section] = resources
        set_or_drop(manifest, "status", status)
        return manifest

    @classmethod
    def initial_from(cls, manifest: dict[str, Any]) -> dict[str, Any]:
        metadata = manifest.get("metadata") or {}
        labels = metadata.get("labels") or {}
        spec = manifest.get("spec") or {}
        status = manifest.get("status") or {}
        resources = {**(status.get("capacity") or {}), **(status.get("allocatable") or {})}
        return {
            "name": metadata.get("name", ""),
            "cpu": str(resources.get("cpu", "")),
            "memory": str(resources.get("memory", "")),
            "pods": resources.get("pods"),
            "zone": labels.get(ZONE_LABEL, ""),
            "labels": format_key_values(labels, skip=(ZONE_LABEL,)),
            "taints": format_taints(spec.get("taints")),
            "unschedulable": bool(spec.get("unschedulable")),
        }


class BulkNodesForm(forms.Form):
    count = forms.IntegerField(min_value=1, max_value=MAX_BULK, initial=3, label="How many")
    prefix = forms.SlugField(max_length=50, initial="node", label="Name prefix")
    zones = forms.IntegerField(min_value=0, max_value=104, initial=3, label="Zones", help_text="0: no zone labels")
    cpu = forms.CharField(max_length=64, initial="4", label="CPU")
    memory = forms.CharField(max_length=64, initial="16Gi")
    pods = forms.IntegerField(min_value=0, initial=110, required=False)
    labels = forms.CharField(required=False, widget=TEXTAREA, help_text=KEY_VALUE_HELP)
    taints = forms.CharField(required=False, widget=TEXTAREA, help_text="key=value:Effect per line")

    def clean_labels(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["labels"])

    def clean_taints(self) -> list[dict[str, str]]:
        return parse_taints(self.cleaned_data["taints"])

    def template(self) -> NodeTemplate:
        data = self.cleaned_data
        return NodeTemplate(
            cpu=data["cpu"].strip(),
            memory=data["memory"].strip(),
            pods=data["pods"],
            labels=data["labels"],
            taints=data["taints"],
        )

    def add_scenario_error(self, error: ScenarioInvalid) -> None:
        self.add_error("count" if error.field == "count" else None, error.message)
