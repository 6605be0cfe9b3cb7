"""Scenario forms: details, a new scenario, importing YAML."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

from playground.limits import max_yaml_bytes, too_large
from playground.uploads import UploadRefused, read_upload_text


def _read_upload(upload: Any) -> str:
    """An uploaded file's text (gunzipped if it is gzip), refused with a located message when it
    cannot be used; a size refusal names the limit and its setting."""
    try:
        return read_upload_text(upload, limit=max_yaml_bytes())
    except UploadRefused as refused:
        raise forms.ValidationError(too_large(refused.message) if refused.too_large else refused.message) from None


class ScenarioDetailsForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0)


class YamlTextField(forms.CharField):
    """Pasted YAML: a NUL character is left for the import to refuse with its line and column
    (Django's CharField would drop the whole value with "Null characters are not allowed")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class YamlImportForm(forms.Form):
    """Multi-document YAML, pasted or uploaded (an upload wins over pasted text)."""

    file = forms.FileField(required=False, label="Upload a YAML file (or .yaml.gz)")
    text = YamlTextField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "class": "code"}),
        label="YAML",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            data["yaml"] = _read_upload(upload)
            data["source"] = upload.name
        elif (data.get("text") or "").strip():
            data["yaml"] = data["text"]
            data["source"] = "pasted YAML"
        else:
            raise forms.ValidationError("Paste some YAML or choose a file to upload.")
        size = len(data["yaml"].encode("utf-8"))
        if size > max_yaml_bytes():
            raise forms.ValidationError(too_large(f"The YAML is too large ({size:,} bytes)"))
        return data


class NewScenarioForm(ScenarioDetailsForm):
    """Name a new scenario; optionally start it from YAML."""

    file = forms.FileField(required=False, label="Start from a YAML file, or one compressed with gzip (optional)")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        data["yaml"] = None
        if upload is not None:
            data["yaml"] = _read_upload(upload)
            data["source"] = upload.name
        return data
