"""The base of every object form: a manifest built from the form, loader errors shown at their field."""

from __future__ import annotations

import copy
from typing import Any

from django import forms

from playground.manifests import API_VERSIONS
from playground.services.scenario_validation import ScenarioInvalid

TEXTAREA = forms.Textarea(attrs={"rows": 2})
KEY_VALUE_HELP = "key=value, one per line or comma-separated"


class ManifestForm(forms.Form):
    """A form for one kind of object; subclasses build the manifest from their cleaned data."""

    kind = ""
    # (prefix of the loader's field path, form field) so a loader error lands next to its input.
    field_paths: tuple[tuple[str, str], ...] = ()

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def initial_from(cls, manifest: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _start(self, base: dict[str, Any] | None) -> dict[str, Any]:
        manifest = copy.deepcopy(base) if base else {}
        manifest["apiVersion"] = manifest.get("apiVersion") or API_VERSIONS[self.kind]
        manifest["kind"] = self.kind
        if not isinstance(manifest.get("metadata"), dict):
            manifest["metadata"] = {}
        return manifest

    def add_scenario_error(self, error: ScenarioInvalid) -> None:
        """Show the loader's message next to the input it is about (else above the form)."""
        target = None
        if error.field and (error.kind in (None, self.kind)) and self.is_bound:
            for prefix, field_name in self.field_paths:
                if (
                    error.field == prefix
                    or error.field.startswith(prefix + ".")
                    or error.field.startswith(prefix + "[")
                ):
                    target = field_name
                    break
        self.add_error(target if target in self.fields else None, error.message)
