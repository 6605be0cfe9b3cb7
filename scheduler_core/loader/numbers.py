"""Integers too large for any Kubernetes field, found while the YAML is decoded and refused with
the document, object and field that hold them.

Why at decoding: Python refuses to turn a decimal text of more than 4,300 digits into an int (a
guard against quadratic conversion), so PyYAML's constructor raises a bare ValueError that no
field check ever sees; an int built from a hexadecimal or sexagesimal text has no such limit but
then cannot be printed in any error message. No Kubernetes integer field holds more than 64 bits
(the API server's decoder refuses such a number for an int32/int64 field, and a quantity is
capped far below), so nothing a manifest may legitimately say is lost by refusing them.

The constructor cannot know the field path (PyYAML builds the documents breadth-first through
generators), so it leaves an `OversizedInteger` in place of the value and notes that it did;
`locate_oversized` then walks the built documents in their order and names the first one.
"""

from __future__ import annotations

import math
from typing import Any

from scheduler_core.api.errors import ScenarioError

__all__ = ["MAX_INTEGER_DIGITS", "OversizedInteger", "construct_integer", "locate_oversized", "shown"]

# Python's default limit on int <-> decimal text conversion; an int past it cannot be shown.
MAX_INTEGER_DIGITS = 4300
_MAX_BITS = math.ceil(MAX_INTEGER_DIGITS * math.log2(10))
_INT64_MAX = 2**63 - 1


def shown(value: object, limit: int = 40) -> str:
    """A value as an error message quotes it: a number or text of thousands of characters is
    cut to its ends and its length, so one line still says what was written."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}...{text[-8:]} ({len(text):,} characters)"


class OversizedInteger:
    """Stands in for a plain integer scalar too large to convert: its length and line."""

    __slots__ = ("digits", "line")

    def __init__(self, digits: int, line: int) -> None:
        self.digits = digits  # characters of the scalar's text (sign and underscores excluded)
        self.line = line  # 1-based

    def __repr__(self) -> str:
        return f"<integer of {self.digits:,} digits>"


def construct_integer(loader: Any, node: Any) -> Any:
    """The YAML int constructor, leaving an `OversizedInteger` (and a note on `loader`) where the
    value is too large to convert or to print."""
    try:
        value = loader.construct_yaml_int(node)
    except ValueError:
        value = None
    if value is None or value.bit_length() > _MAX_BITS:
        text = str(node.value).replace("_", "").lstrip("+-")
        if text[:2].lower() in ("0x", "0b", "0o"):
            text = text[2:]
        marker = OversizedInteger(sum(1 for c in text if c.isalnum()), node.start_mark.line + 1)
        loader.oversized = True
        return marker
    return value


def _path(parent: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _find(value: Any, path: str) -> tuple[str, OversizedInteger] | None:
    """The first `OversizedInteger` under `value` in document order, with its field path.
    Iterative: nesting is bounded by the decoder, but a walk need not rely on it."""
    stack: list[tuple[Any, str]] = [(value, path)]
    seen: set[int] = set()
    while stack:
        node, where = stack.pop()
        if isinstance(node, OversizedInteger):
            return where, node
        if isinstance(node, (dict, list)):
            if id(node) in seen:  # an alias shares a subtree: its first use is the one named
                continue
            seen.add(id(node))
            items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
            for key, child in reversed(items):
                if isinstance(key, OversizedInteger):
                    return where, key
                stack.append((child, _path(where, key)))
    return None


def _object_of(document: Any, path: str) -> tuple[Any, str, str | None, str | None]:
    """The object a field path lies in (a List's item when under `items[i]`), the path inside
    it, and its kind and name (namespace/name for a namespaced one)."""
    obj, inner = document, path
    if isinstance(document, dict) and path.startswith("items[") and isinstance(document.get("items"), list):
        head, _, rest = path.partition("]")
        index = int(head[len("items["):])
        items = document["items"]
        if 0 <= index < len(items) and isinstance(items[index], dict):
            obj, inner = items[index], rest.lstrip(".")
    if not isinstance(obj, dict):
        return obj, inner, None, None
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else None
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    if name and namespace:
        name = f"{namespace}/{name}"
    return obj, inner, kind, name


def locate_oversized(documents: list[Any], source: str) -> ScenarioError:
    """The located error for the first oversized integer of `documents` (the constructor saw one)."""
    for index, document in enumerate(documents, start=1):
        found = _find(document, "")
        if found is None:
            continue
        path, marker = found
        _, inner, kind, name = _object_of(document, path)
        reason = (f"Invalid value: an integer of {marker.digits:,} digits is too large: no Kubernetes "
                  f"field holds an integer beyond 64 bits (at most {_INT64_MAX})")
        return ScenarioError(reason, file=source, document=index, kind=kind, name=name,
                             field=inner or None, line=marker.line)
    return ScenarioError("an integer is too large to convert", file=source)
