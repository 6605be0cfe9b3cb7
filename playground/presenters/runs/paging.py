"""Pages of a long list (nodes, pods, events, a filter group), and the viewer's query parameters.

Big runs show their long lists a page at a time; the page's number travels with the viewer's
search and filters (htmx GETs), never in the websocket's pushes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Page:
    items: Sequence[Any]
    number: int
    pages: int
    total: int
    size: int

    @property
    def first_index(self) -> int:
        return (self.number - 1) * self.size + 1 if self.total else 0

    @property
    def last_index(self) -> int:
        return self.first_index + len(self.items) - 1 if self.total else 0

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None

    @property
    def paged(self) -> bool:
        return self.pages > 1


def paginate(items: Sequence[Any], page: int, size: int) -> Page:
    """Page `page` (1-based, clamped into range) of `items`."""
    pages = max(1, -(-len(items) // size))
    number = min(max(1, page), pages)
    start = (number - 1) * size
    return Page(items=items[start : start + size], number=number, pages=pages, total=len(items), size=size)


def param(params: Mapping[str, Any] | None, name: str, default: str = "") -> str:
    """One query parameter as stripped text (bounded: a query is never a document)."""
    value = (params or {}).get(name, default)
    return str(value if value is not None else default).strip()[:200]


def int_param(params: Mapping[str, Any] | None, name: str, default: int = 1) -> int:
    try:
        return int(param(params, name, str(default)) or default)
    except ValueError:
        return default
