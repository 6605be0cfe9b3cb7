"""The scheduler configuration form (a KubeSchedulerConfiguration document as YAML)."""

from __future__ import annotations

from typing import Any

from django import forms

from playground.manifests import API_VERSIONS, dump_one, load_one
from playground.services.scenario_validation import ScenarioInvalid


class SchedulerConfigForm(forms.Form):
    """The KubeSchedulerConfiguration document as YAML; empty means the v1.35 defaults."""

    config = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "code"}),
        label="KubeSchedulerConfiguration (YAML)",
        help_text="Leave empty for the default configuration.",
    )

    def clean_config(self) -> dict[str, Any] | None:
        import yaml

        text = self.cleaned_data["config"]
        if not text.strip():
            return None
        if len(text.encode("utf-8")) > 256 * 1024:
            raise forms.ValidationError("The configuration is too large (the limit is 256 KB).")
        try:
            value = load_one(text)
        except yaml.YAMLError as error:
            raise forms.ValidationError(f"Not valid YAML: {error}") from None
        except ValueError:  # an integer too long to convert: the engine's decoder says where
            from scheduler_core.api.errors import ScenarioError
            from scheduler_core.loader.yaml_input import decode_yaml

            try:
                decode_yaml(text, "configuration")
            except ScenarioError as error:
                raise forms.ValidationError(str(error)) from None
            raise forms.ValidationError("Not valid YAML: a number is too large") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("Expected one YAML mapping (a KubeSchedulerConfiguration).")
        value.setdefault("apiVersion", API_VERSIONS["KubeSchedulerConfiguration"])
        value.setdefault("kind", "KubeSchedulerConfiguration")
        if value["kind"] != "KubeSchedulerConfiguration":
            raise forms.ValidationError("kind must be KubeSchedulerConfiguration.")
        return value

    def add_scenario_error(self, error: ScenarioInvalid) -> None:
        self.add_error("config", error.message)

    @staticmethod
    def initial_from(manifest: dict[str, Any] | None) -> dict[str, Any]:
        return {"config": dump_one(manifest) if manifest else ""}
