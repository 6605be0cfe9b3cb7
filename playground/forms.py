"""Forms for the scenario editor: the common fields of each object, turned into manifests.

Forms only parse the shorthand a person types (``key=value`` lines, ``key=value:Effect``
taints); whether the result is a valid Kubernetes object is decided by the engine's loader when
the service validates the whole scenario. Editing merges the form's fields into the stored
manifest, so fields the form does not show (images, affinity, ...) are kept.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from django import forms

from playground.manifests import API_VERSIONS, dump_one, load_one
from playground.services.scenarios import (
    HOSTNAME_LABEL,
    MAX_BULK,
    MAX_YAML_BYTES,
    PAUSE_IMAGE,
    ZONE_LABEL,
    NodeTemplate,
    ScenarioInvalid,
)

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_ITEM_SPLIT = re.compile(r"[\n,]")


def _items(text: str) -> list[str]:
    return [item.strip() for item in _ITEM_SPLIT.split(text or "") if item.strip()]


def parse_key_values(text: str) -> dict[str, str]:
    """``a=1, b=2`` or one ``key=value`` per line -> {"a": "1", "b": "2"}."""
    result: dict[str, str] = {}
    for item in _items(text):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise forms.ValidationError(f'"{item}" is not key=value')
        if key in result:
            raise forms.ValidationError(f'"{key}" is given twice')
        result[key] = value.strip()
    return result


def format_key_values(mapping: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> str:
    return "\n".join(f"{k}={v}" for k, v in (mapping or {}).items() if k not in skip)


def _effect(text: str, item: str) -> str:
    for effect in EFFECTS:
        if text.lower() == effect.lower():
            return effect
    raise forms.ValidationError(f'"{item}": the effect must be one of {", ".join(EFFECTS)}')


def parse_taints(text: str) -> list[dict[str, str]]:
    """``key=value:Effect`` or ``key:Effect`` per line -> taint dicts (as kubectl taint writes them)."""
    taints = []
    for item in _items(text):
        head, sep, effect = item.rpartition(":")
        if not sep or not head:
            raise forms.ValidationError(f'"{item}" is not key[=value]:Effect')
        key, _, value = head.partition("=")
        taint = {"key": key.strip(), "effect": _effect(effect.strip(), item)}
        if value.strip():
            taint["value"] = value.strip()
        taints.append(taint)
    return taints


def format_taints(taints: list[dict[str, Any]] | None) -> str:
    lines = []
    for taint in taints or []:
        if not isinstance(taint, dict):
            continue
        value = f"={taint['value']}" if taint.get("value") else ""
        lines.append(f"{taint.get('key', '')}{value}:{taint.get('effect', '')}")
    return "\n".join(lines)


def parse_tolerations(text: str) -> list[dict[str, Any]]:
    """One toleration per line:

    ``key=value:Effect`` (Equal), ``key=value`` (Equal, any effect), ``key:Effect`` or ``key``
    (Exists), ``*`` (tolerates everything); a trailing ``:seconds`` after NoExecute sets
    tolerationSeconds.
    """
    tolerations = []
    for item in _items(text):
        parts = item.split(":")
        head = parts[0].strip()
        toleration: dict[str, Any] = {}
        if head == "*":
            toleration["operator"] = "Exists"
        else:
            key, sep, value = head.partition("=")
            if not key.strip():
                raise forms.ValidationError(f'"{item}": a toleration needs a key (or * for all)')
            toleration["key"] = key.strip()
            if sep:
                toleration["operator"] = "Equal"
                toleration["value"] = value.strip()
            else:
                toleration["operator"] = "Exists"
        if len(parts) >= 2 and parts[1].strip():
            toleration["effect"] = _effect(parts[1].strip(), item)
        if len(parts) == 3:
            try:
                toleration["tolerationSeconds"] = int(parts[2].strip())
            except ValueError:
                raise forms.ValidationError(f'"{item}": tolerationSeconds must be a whole number') from None
        if len(parts) > 3:
            raise forms.ValidationError(f'"{item}" is not key[=value][:Effect[:seconds]]')
        tolerations.append(toleration)
    return tolerations


def format_tolerations(tolerations: list[dict[str, Any]] | None) -> str:
    lines = []
    for t in tolerations or []:
        if not isinstance(t, dict):
            continue
        if t.get("operator") == "Exists" and not t.get("key"):
            line = "*"
        elif t.get("operator", "Equal") == "Exists":
            line = str(t.get("key", ""))
        else:
            line = f"{t.get('key', '')}={t.get('value', '')}"
        if t.get("effect"):
            line += f":{t['effect']}"
            if t.get("tolerationSeconds") is not None:
                line += f":{t['tolerationSeconds']}"
        lines.append(line)
    return "\n".join(lines)


def _int_or_percent(value: str) -> int | str | None:
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return int(value)
    return value  # "50%" or nonsense: the loader explains what is wrong


def _set_or_drop(mapping: dict[str, Any], key: str, value: Any) -> None:
    if value in (None, "", {}, []):
        mapping.pop(key, None)
    else:
        mapping[key] = value


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
                if error.field == prefix or error.field.startswith(prefix + ".") or error.field.startswith(prefix + "["):
                    target = field_name
                    break
        self.add_error(target if target in self.fields else None, error.message)


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
        _set_or_drop(manifest["metadata"], "labels", labels)
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        _set_or_drop(spec, "taints", data["taints"])
        _set_or_drop(spec, "unschedulable", True if data["unschedulable"] else None)
        _set_or_drop(manifest, "spec", spec)
        status = manifest.get("status") if isinstance(manifest.get("status"), dict) else {}
        values = {"cpu": data["cpu"].strip(), "memory": data["memory"].strip()}
        values["pods"] = "" if data["pods"] is None else str(data["pods"])
        for section in ("capacity", "allocatable"):
            resources = status.get(section) if isinstance(status.get(section), dict) else {}
            if section == "allocatable" and "allocatable" not in status and base is not None:
                continue  # allocatable defaults to capacity: leave it absent when it was
            for key, value in values.items():
                _set_or_drop(resources, key, value)
            status[section] = resources
        _set_or_drop(manifest, "status", status)
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
        _set_or_drop(manifest["metadata"], "labels", data["labels"])
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        containers = spec.get("containers") if isinstance(spec.get("containers"), list) else []
        if not containers or not isinstance(containers[0], dict):
            containers = [{"name": "app", "image": PAUSE_IMAGE}] + containers[1:]
        first = containers[0]
        resources = first.get("resources") if isinstance(first.get("resources"), dict) else {}
        requests = resources.get("requests") if isinstance(resources.get("requests"), dict) else {}
        _set_or_drop(requests, "cpu", data["cpu"].strip())
        _set_or_drop(requests, "memory", data["memory"].strip())
        _set_or_drop(resources, "requests", requests)
        _set_or_drop(first, "resources", resources)
        spec["containers"] = containers
        _set_or_drop(spec, "priorityClassName", data["priority_class_name"].strip())
        _set_or_drop(spec, "nodeSelector", data["node_selector"])
        _set_or_drop(spec, "tolerations", data["tolerations"])
        _set_or_drop(spec, "schedulerName", data["scheduler_name"].strip())
        _set_or_drop(spec, "schedulingGates", data["scheduling_gates"])
        ports = [p for p in first.get("ports") or [] if isinstance(p, dict) and not p.get("hostPort")]
        if data.get("host_port"):
            ports.insert(0, {"containerPort": data["host_port"], "hostPort": data["host_port"]})
        _set_or_drop(first, "ports", ports)
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
            _set_or_drop(spec, "affinity", affinity)
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
            _set_or_drop(spec, "topologySpreadConstraints", constraints)
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
        _set_or_drop(manifest, "globalDefault", True if data["global_default"] else None)
        policy = data["preemption_policy"]
        _set_or_drop(manifest, "preemptionPolicy", None if policy == "PreemptLowerPriority" and base is None else policy)
        _set_or_drop(manifest, "description", data["description"])
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
    max_unavailable = forms.CharField(
        max_length=16, required=False, label="maxUnavailable", help_text="a number or N%"
    )

    def clean_selector(self) -> dict[str, str]:
        return parse_key_values(self.cleaned_data["selector"])

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        data = self.cleaned_data
        manifest = self._start(base)
        manifest["metadata"]["name"] = data["name"].strip()
        manifest["metadata"]["namespace"] = data["namespace"].strip() or "default"
        spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
        spec["selector"] = {"matchLabels": data["selector"]}
        _set_or_drop(spec, "minAvailable", _int_or_percent(data["min_available"]))
        _set_or_drop(spec, "maxUnavailable", _int_or_percent(data["max_unavailable"]))
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


class ScenarioDetailsForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0)


class YamlImportForm(forms.Form):
    """Multi-document YAML, pasted or uploaded (an upload wins over pasted text)."""

    file = forms.FileField(required=False, label="Upload a YAML file")
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false", "class": "code"}),
        label="YAML",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            if upload.size > MAX_YAML_BYTES:
                raise forms.ValidationError(
                    f"{upload.name}: the file is too large ({upload.size:,} bytes; the limit is {MAX_YAML_BYTES:,} bytes)."
                )
            raw = upload.read(MAX_YAML_BYTES + 1)
            try:
                data["yaml"] = raw.decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise forms.ValidationError(
                    f"{upload.name}: the file is not UTF-8 text ({error.reason} at byte {error.start})."
                ) from None
            data["source"] = upload.name
        elif (data.get("text") or "").strip():
            data["yaml"] = data["text"]
            data["source"] = "pasted YAML"
        else:
            raise forms.ValidationError("Paste some YAML or choose a file to upload.")
        if len(data["yaml"].encode("utf-8")) > MAX_YAML_BYTES:
            raise forms.ValidationError(f"The YAML is too large (the limit is {MAX_YAML_BYTES:,} bytes).")
        return data


class NewScenarioForm(ScenarioDetailsForm):
    """Name a new scenario; optionally start it from YAML."""

    file = forms.FileField(required=False, label="Start from a YAML file (optional)")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        data["yaml"] = None
        if upload is not None:
            if upload.size > MAX_YAML_BYTES:
                raise forms.ValidationError(
                    f"{upload.name}: the file is too large ({upload.size:,} bytes; the limit is {MAX_YAML_BYTES:,} bytes)."
                )
            try:
                data["yaml"] = upload.read(MAX_YAML_BYTES + 1).decode("utf-8-sig")
            except UnicodeDecodeError as error:
                raise forms.ValidationError(
                    f"{upload.name}: the file is not UTF-8 text ({error.reason} at byte {error.start})."
                ) from None
            data["source"] = upload.name
        return data


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
        self.add_error(None, error.message)


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
        self.add_error(None, error.message)


FORM_BY_KIND: dict[str, type[ManifestForm]] = {
    "Node": NodeForm,
    "Pod": PodForm,
    "PriorityClass": PriorityClassForm,
    "PodDisruptionBudget": PodDisruptionBudgetForm,
}
