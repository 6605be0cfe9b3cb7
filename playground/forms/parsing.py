"""The shorthand a person types into the editor's forms, parsed and formatted back
(``key=value`` lines, ``key=value:Effect`` taints, tolerations)."""

from __future__ import annotations

import re
from typing import Any

from django import forms

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_ITEM_SPLIT = re.compile(r"[\n,]")


def split_items(text: str) -> list[str]:
    return [item.strip() for item in _ITEM_SPLIT.split(text or "") if item.strip()]


def parse_key_values(text: str) -> dict[str, str]:
    """``a=1, b=2`` or one ``key=value`` per line -> {"a": "1", "b": "2"}."""
    result: dict[str, str] = {}
    for item in split_items(text):
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
    for item in split_items(text):
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
    for item in split_items(text):
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


def int_or_percent(value: str) -> int | str | None:
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return int(value)
    return value  # "50%" or nonsense: the loader explains what is wrong


def set_or_drop(mapping: dict[str, Any], key: str, value: Any) -> None:
    if value in (None, "", {}, []):
        mapping.pop(key, None)
    else:
        mapping[key] = value
