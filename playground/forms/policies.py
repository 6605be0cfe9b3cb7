"""PriorityClass and PodDisruptionBudget forms."""

from __future__ import annotations

from typing import Any

from django import forms

from playground.forms.base import KEY_VALUE_HELP, TEXTAREA, ManifestForm
from playground.forms.parsing import (
    format_key_values,
    int_or_percent,
    parse_key_values,
    set_or_drop,
)


class PriorityClassForm(ManifestForm):
    kind = "PriorityClass"
    field_paths = (
        ("metadata.name", "name"),
        ("value", "value"),
        ("globalDefault", "global_default"),
        ("preemptionPolicy", "preemption_policy"),
    )

    name = forms.CharField(max_length=253)
    value = forms.IntegerField(initial=1000)
    global_default = forms.BooleanField(required=False, label="globalDefault")
    preemption_policy = forms.ChoiceField(
        choices=[("PreemptLowerPriority", "PreemptLowerPriority"), ("Never", "Never")], label="preemptionPolicy"
    )
    description = forms.CharField(required=False, max_length=1000)

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        data = self.cleaned_data
        manifest = self._start(base)
        manifest["metadata"]["name"] = data["name"].strip()
        manifest["value"] = data["value"]
        set_or_drop(manifest, "globalDefault", True if data["global_default"] else None)
        policy = data["preemption_policy"]
        set_or_drop(manifest, "preemptionPolicy", None if policy == "PreemptLowerPriority" and base is None else policy)
        set_or_drop(manifest, "description", data["description"])
        return manifest

    @classmethod
    def initial_from(cls, manifest: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": (manifest.get("metadata") or {}).get("name", ""),
            "value": manifest.get("value"),
            "global_default": bool(manifest.get("globalDefault")),
            "preemption_policy": manifest.get("preemptionPolicy") or "PreemptLowerPriority",
            "description": manifest.get("description", ""),
        }


class PodDisruptionBudgetForm(ManifestForm):
    kind = "PodDisruptionBudget"
    field_paths = (
        ("metadata.name", "name"),
        ("metadata.namespace", "namespace"),
        ("spec.selector", "selector"),
        ("spec.minAvailable", "min_available"),
        ("spec.maxUnavailable", "max_unavailable"),
        ("spec", "min_available"),
    )

    name = forms.CharField(max_length=253)
    namespace = forms.CharField(max_length=63, initial="default")
    selector = forms.CharField(widget=TEXTAREA, help_text="matchLabels: " + KEY_VALUE_HELP)
    min_available = forms.CharField(max_length=16, required=False, label="minAvailable", help_text="a number or N%")
    max_unavailable = forms.CharField(max_length=16, required=False, label="maxUnavailable", help_text="a number or N%")

    def clean_selector(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["selector"])

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        data = self.cleaned_data
        manifest = self._start(base)
        manifest["metadata"]["name"] = data["name"].strip()
        manifest["metadata"]["namespace"] = data["namespace"].strip() or "default"
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        spec["selector"] = {"matchLabels": data["selector"]}
        set_or_drop(spec, "minAvailable", int_or_percent(data["min_available"]))
        set_or_drop(spec, "maxUnavailable", int_or_percent(data["max_unavailable"]))
        manifest["spec"] = spec
        return manifest

    @classmethod
    def initial_from(cls, manifest: dict[str, Any]) -> dict[str, Any]:
        metadata = manifest.get("metadata") or {}
        spec = manifest.get("spec") or {}
        selector = spec.get("selector") or {}
        return {
            "name": metadata.get("name", ""),
            "namespace": metadata.get("namespace", "default"),
            "selector": format_key_values(selector.get("matchLabels")),
            "min_available": "" if spec.get("minAvailable") is None else str(spec["minAvailable"]),
            "max_unavailable": "" if spec.get("maxUnavailable") is None else str(spec["maxUnavailable"]),
        }
