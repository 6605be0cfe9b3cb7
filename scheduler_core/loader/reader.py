"""Typed, located access to a decoded manifest: the one way loader code reads a field.

Public because other parts of the engine (the extender client re-reading nodes an extender
returns) parse Kubernetes objects with the same rules and want the same precise errors:

    reader = object_reader("extender http://x", "Node", "n1")
    node = parse_node(reader, manifest, index)

Every accessor takes the field path it is reading, so an error names document, object and field.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.quantity import QuantityError, parse_quantity
from scheduler_core.api.validation import label_value_error, qualified_name_error
from scheduler_core.loader.memo import ParseMemo
from scheduler_core.loader.numbers import shown

__all__ = ["Location", "FieldReader", "object_reader", "type_name", "join_path"]

# Label maps validated already, by their items (see FieldReader.labels).
_LABELS: ParseMemo[dict[str, str]] = ParseMemo()


class Location:
    """Where we are: file, 1-based document index, object kind/name. Builds ScenarioErrors."""

    __slots__ = ("file", "index", "kind", "name")

    def __init__(self, file: str, index: int | None, kind: str | None = None,
                 name: str | None = None) -> None:
        self.file = file
        self.index = index
        self.kind = kind
        self.name = name

    def error(self, field: str | None, reason: str) -> ScenarioError:
        return ScenarioError(reason, file=self.file, document=self.index, kind=self.kind,
                             name=self.name, field=field or None)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def join_path(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


class FieldReader:
    """Typed access to a decoded manifest, raising field-precise ScenarioErrors."""

    __slots__ = ("doc",)

    def __init__(self, doc: Location) -> None:
        self.doc = doc

    def err(self, path: str, reason: str) -> ScenarioError:
        return self.doc.error(path, reason)

    def mapping(self, obj: Any, path: str, *, required: bool = False) -> dict[str, Any]:
        if obj is None:
            if required:
                raise self.err(path, "Required value")
            return {}
        if not isinstance(obj, dict):
            raise self.err(path, f"expected an object, got {type_name(obj)}")
        return obj

    def seq(self, obj: Any, path: str) -> list[Any]:
        if obj is None:
            return []
        if not isinstance(obj, list):
            raise self.err(path, f"expected an array, got {type_name(obj)}")
        return obj

    def string(self, obj: Any, path: str, default: str = "") -> str:
        if obj is None:
            return default
        if not isinstance(obj, str):
            raise self.err(path, f"expected a string, got {type_name(obj)} {shown(repr(obj))}")
        return obj

    def boolean(self, obj: Any, path: str, default: bool = False) -> bool:
        if obj is None:
            return default
        if not isinstance(obj, bool):
            raise self.err(path, f"expected a boolean, got {type_name(obj)} {shown(repr(obj))}")
        return obj

    def integer(self, obj: Any, path: str, *, bits: int = 32) -> int:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise self.err(path, f"expected an integer, got {type_name(obj)} {shown(repr(obj))}")
        if isinstance(obj, float):
            if obj != obj or obj in (float("inf"), float("-inf")) or obj != int(obj):
                raise self.err(path, f"expected an integer, got {shown(repr(obj))}")
            obj = int(obj)
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        if not lo <= obj <= hi:
            raise self.err(path, f"Invalid value: {shown(obj)}: out of range for int{bits}")
        return obj

    def opt_integer(self, obj: Any, path: str, *, bits: int = 32) -> int | None:
        return None if obj is None else self.integer(obj, path, bits=bits)

    def number(self, obj: Any, path: str) -> float:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise self.err(path, f"expected a number, got {type_name(obj)} {shown(repr(obj))}")
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise self.err(path, f"expected a finite number, got {shown(repr(obj))}")
        return float(obj)

    def string_list(self, obj: Any, path: str) -> list[str]:
        items = self.seq(obj, path)
        return [self.string(v, f"{path}[{i}]") for i, v in enumerate(items)]

    def string_map(self, obj: Any, path: str) -> dict[str, str]:
        m = self.mapping(obj, path)
        out: dict[str, str] = {}
        for k, v in m.items():
            if not isinstance(k, str):
                raise self.err(path, f"keys must be strings, got {type_name(k)} {shown(repr(k))}")
            if not isinstance(v, str):
                if v is None:
                    v = ""
                else:
                    raise self.err(f"{path}.{k}",
                                   f"expected a string, got {type_name(v)} {shown(repr(v))} (quote it)")
            out[k] = v
        return out

    def labels(self, obj: Any, path: str) -> dict[str, str]:
        """A validated label map (a new dict the caller may change). A map read before (the same
        keys and values, in the same order) gives a copy of that result: the replicas of a
        workload repeat their template's labels."""
        if not obj or not isinstance(obj, dict):
            return self._labels(obj, path)
        try:
            key = tuple(obj.items())
            hit = _LABELS.get(key)
        except TypeError:  # an unhashable value: the full check reports it
            return self._labels(obj, path)
        if hit is not None:
            return dict(hit)
        labels = self._labels(obj, path)
        # Only a map of strings (and nulls, read as "") gets here; whatever equals its key is
        # then the same map: no value of another type equals a string or None.
        _LABELS.put(key, dict(labels))
        return labels

    def _labels(self, obj: Any, path: str) -> dict[str, str]:
        labels = self.string_map(obj, path)
        for k, v in labels.items():
            e = qualified_name_error(k)
            if e:
                raise self.err(path, f'Invalid value: "{k}": {e}')
            e = label_value_error(v)
            if e:
                raise self.err(f"{path}.{k}", f'Invalid value: "{v}": {e}')
        return labels

    def quantity(self, obj: Any, path: str) -> Fraction:
        try:
            return parse_quantity(obj)
        except QuantityError as exc:
            raise self.err(path, f'invalid quantity "{shown(obj)}": {exc}') from None


def object_reader(source: str, kind: str | None = None, name: str | None = None,
                  document: int | None = None) -> FieldReader:
    """A reader for one object from `source` (a file name or a description such as
    "extender http://host:port"); errors name the source, document, kind and name given."""
    return FieldReader(Location(source, document, kind, name))
