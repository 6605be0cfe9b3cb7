"""A memo of what a repeated piece of manifest parsed to, keyed by the piece's text form.

Why: a cluster dump repeats the same container, the same ownerReferences and the same label
maps across every replica of a workload (150,000 pods, a few hundred templates), and parsing
each copy again (validation, located paths, Fraction arithmetic) was most of the loader's
per-pod cost. `repr` of a decoded YAML value identifies its content exactly (types included:
`1`, `1.0`, `True` and `'1'` differ; key order is kept), and costs a fraction of a parse.

Only successes are remembered: an error is always raised by the full parse, with its path.
What a hit gives is either shared or a fresh copy, as its user says: a pod's spec parts
(loader/pods.py) and owner references (loader/metadata.py) are shared by every replica, because
nothing changes a pod or its parts in place (a changed pod is a new Pod with new parts;
tests/engine/simulation/test_start_sharing.py runs every gallery scenario to check it); the
container and label memos hand out copies (their results are still assembled into other objects).
"""

from __future__ import annotations

import marshal
from typing import Any, Generic, TypeVar

__all__ = ["ParseMemo", "content_bytes", "content_key"]

T = TypeVar("T")


def content_key(value: Any) -> str | None:
    """The text that identifies `value`'s content, or None when it cannot be trusted to: `repr`
    shows a container that holds itself as `{...}`/`[...]` (the YAML loader refuses those, but
    a value that merely contains "..." is cheap to leave to the full parse)."""
    text = repr(value)
    return None if "..." in text else text


def content_bytes(value: Any) -> bytes | None:
    """Like `content_key`, at a third of its cost (a pod spec: ~1 us instead of ~3): marshal's
    format 0, which names every value's type (`1`, `1.0`, `True`, `'1'` and `[1]`/`(1,)`
    differ) and keeps key order, and, unlike later formats, writes equal values as equal bytes
    (no back-references or interned-string marks, which depend on how an object is shared).
    Equal bytes decode to equal values, so a key never joins different contents. None for a
    value marshal refuses (a timestamp, a container too deep, one that holds itself)."""
    try:
        return marshal.dumps(value, 0)
    except (ValueError, TypeError, RecursionError):
        return None


class ParseMemo(Generic[T]):
    """A bounded map from content keys to parse results (cleared when full: the repeats of a
    dump come in runs, so what is dropped is soon parsed and remembered again)."""

    __slots__ = ("_entries", "_max")

    def __init__(self, max_entries: int = 4096) -> None:
        self._entries: dict[Any, T] = {}
        self._max = max_entries

    def get(self, key: Any) -> T | None:
        return self._entries.get(key)

    def put(self, key: Any, value: T) -> None:
        if len(self._entries) >= self._max:
            self._entries.clear()
        self._entries[key] = value

    def clear(self) -> None:
        self._entries.clear()
