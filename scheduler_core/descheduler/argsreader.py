"""Typed, located reading of a DeschedulerPolicy's values: every refusal is a ScenarioError
naming the document, the profile and the field path, in the words upstream's validation uses
where it has them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.types import LabelSelector, LabelSelectorRequirement

from .policy import KIND

Err = Callable[[str, str], ScenarioError]

# Resources LowNodeUtilization / HighNodeUtilization can measure from requests.
THRESHOLD_RESOURCES_NOTE = "cpu, memory, pods or an extended resource name"


def error_maker(source: str, document: int | None, name: str = "") -> Err:
    def err(path: str, reason: str) -> ScenarioError:
        return ScenarioError(reason, file=source, document=document, kind=KIND, name=name or None, field=path)
    return err


def mapping(value: Any, path: str, err: Err, allowed: tuple[str, ...]) -> dict[str, Any]:
    """A mapping whose keys are all in `allowed` (None reads as empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise err(path, "expected a mapping")
    for key in value:
        if key not in allowed:
            raise err(f"{path}.{key}" if path else str(key),
                      f"unknown field (allowed: {', '.join(allowed)})")
    return value


def boolean(value: Any, path: str, err: Err, default: bool = False) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise err(path, f"expected true or false, got {value!r}")
    return value


def count(value: Any, path: str, err: Err) -> int | None:
    """A non-negative integer (upstream's *uint), None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise err(path, f"Invalid value: {value!r}: must be a non-negative integer")
    return value


def integer(value: Any, path: str, err: Err) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise err(path, f"Invalid value: {value!r}: must be an integer")
    return value


def text(value: Any, path: str, err: Err) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise err(path, f"expected a string, got {value!r}")
    return value


def names(value: Any, path: str, err: Err) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        raise err(path, "expected a list of names")
    return tuple(value)


def thresholds(value: Any, path: str, err: Err) -> dict[str, float]:
    """api.ResourceThresholds: resource name -> percentage. Range and emptiness are checked by
    the plugin's validation (upstream's messages)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise err(path, f"expected a mapping of resource name to percentage ({THRESHOLD_RESOURCES_NOTE})")
    out: dict[str, float] = {}
    for name, pct in value.items():
        if not isinstance(name, str) or not name:
            raise err(path, "expected resource names as keys")
        if isinstance(pct, bool) or not isinstance(pct, (int, float)):
            raise err(f"{path}.{name}", f"expected a percentage (a number), got {pct!r}")
        out[name] = float(pct)
    return out


def namespaces(value: Any, path: str, err: Err) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """api.Namespaces {include, exclude}; None when absent."""
    if value is None:
        return None
    m = mapping(value, path, err, ("include", "exclude"))
    include = names(m.get("include"), f"{path}.include", err)
    exclude = names(m.get("exclude"), f"{path}.exclude", err)
    if include and exclude:
        raise err(path, "only one of Include/Exclude namespaces can be set")
    return include, exclude


def label_selector(value: Any, path: str, err: Err) -> LabelSelector | None:
    if value is None:
        return None
    m = mapping(value, path, err, ("matchLabels", "matchExpressions"))
    labels = m.get("matchLabels") or {}
    if not isinstance(labels, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        raise err(f"{path}.matchLabels", "expected a mapping of label keys to string values")
    exprs = []
    for i, e in enumerate(m.get("matchExpressions") or []):
        where = f"{path}.matchExpressions[{i}]"
        em = mapping(e, where, err, ("key", "operator", "values"))
        op = em.get("operator")
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise err(f"{where}.operator", f"Unsupported value: {op!r}: supported values: "
                      '"DoesNotExist", "Exists", "In", "NotIn"')
        values = names(em.get("values"), f"{where}.values", err)
        if op in ("In", "NotIn") and not values:
            raise err(f"{where}.values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
        if op in ("Exists", "DoesNotExist") and values:
            raise err(f"{where}.values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        key = text(em.get("key"), f"{where}.key", err)
        if not key:
            raise err(f"{where}.key", "Required value")
        exprs.append(LabelSelectorRequirement(key=key, operator=op, values=values))
    return LabelSelector(match_labels=dict(labels), match_expressions=exprs)


def node_selector_text(value: str, path: str, err: Err) -> tuple[tuple[str, str, str | None], ...]:
    """A label selector string ("zone=a,disk!=hdd,gpu") as (key, op, value) terms: "=", "!="
    and existence, the forms upstream's nodeSelector flag is given in."""
    terms: list[tuple[str, str, str | None]] = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        if "!=" in part:
            k, v = part.split("!=", 1)
            terms.append((k.strip(), "!=", v.strip()))
        elif "==" in part or "=" in part:
            k, v = part.split("==", 1) if "==" in part else part.split("=", 1)
            terms.append((k.strip(), "=", v.strip()))
        elif part.startswith("!"):
            terms.append((part[1:].strip(), "!", None))
        else:
            terms.append((part, "exists", None))
        if not terms[-1][0]:
            raise err(path, f"Invalid value: {value!r}: a selector term has no key")
    return tuple(terms)


def selector_text_matches(terms: tuple[tuple[str, str, str | None], ...], labels: dict[str, str]) -> bool:
    for key, op, val in terms:
        if op == "=" and labels.get(key) != val:
            return False
        if op == "!=" and labels.get(key) == val:
            return False
        if op == "exists" and key not in labels:
            return False
        if op == "!" and key in labels:
            return False
    return True
