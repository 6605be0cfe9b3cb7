"""Typed, located reading of a decoded KubeSchedulerConfiguration: each helper names the field
path it reads, so a ConfigError says where (the scenario loader adds document and kind)."""

from __future__ import annotations

import difflib
import re
from typing import Any

__all__ = ["ConfigError", "type_name", "as_map", "as_list", "as_str", "as_bool", "as_int",
           "check_known", "parse_duration"]


class ConfigError(ValueError):
    """A configuration problem at `field` (dotted path), with `reason`. An aggregate of several
    (`validation.aggregate`) has no field, the joined messages as reason and each in `errors`."""

    def __init__(self, field: str | None, reason: str,
                 errors: list[ConfigError] | None = None) -> None:
        self.field = field
        self.reason = reason
        self.errors = errors if errors is not None else [self]
        super().__init__(f"{field}: {reason}" if field else reason)


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    return type(v).__name__


def as_map(v: Any, path: str) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ConfigError(path, f"expected an object, got {type_name(v)}")
    return v


def as_list(v: Any, path: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ConfigError(path, f"expected an array, got {type_name(v)}")
    return v


def as_str(v: Any, path: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise ConfigError(path, f"expected a string, got {type_name(v)} {v!r}")
    return v


def as_bool(v: Any, path: str) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise ConfigError(path, f"expected a boolean, got {type_name(v)} {v!r}")
    return v


def as_int(v: Any, path: str, bits: int = 32) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (
            isinstance(v, float) and (v != v or v != int(v))):
        raise ConfigError(path, f"expected an integer, got {type_name(v)} {v!r}")
    v = int(v)
    if not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
        raise ConfigError(path, f"Invalid value: {v}: out of range for int{bits}")
    return v


def check_known(m: dict[str, Any], allowed: set[str], path: str) -> None:
    for k in m:
        if k not in allowed:
            where = f"{path}.{k}" if path else str(k)
            reason = f'unknown field "{k}"'
            close = difflib.get_close_matches(str(k), sorted(allowed), n=1, cutoff=0.7)
            if close:
                reason += f'; did you mean "{close[0]}"?'
            raise ConfigError(where, reason)


_DURATION_RE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
                   "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Go's time.ParseDuration ("5s", "1m30s", "250ms", "0") in seconds."""
    s = text.strip()
    if not s:
        raise ValueError("invalid duration \"\"")
    sign = 1.0
    if s[0] in "+-":
        sign = -1.0 if s[0] == "-" else 1.0
        s = s[1:]
    if s == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(s):
        m = _DURATION_RE.match(s, pos)
        if not m:
            raise ValueError(f'invalid duration "{text}"')
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if pos == 0:
        raise ValueError(f'invalid duration "{text}"')
    return sign * total
