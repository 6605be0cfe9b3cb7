"""The editor's object lists: one page of one section, searched by name.

A 5,000-node scenario must not put a row per object on its page, so each section shows a page
of PAGE_SIZE rows with a pager and a name search (htmx GETs answered with the list alone, like
the run page's panels), and the page's header gives the counts by kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playground.presenters.runs.paging import Page, int_param, param
from playground.selectors.scenarios import SECTION_KINDS, section_objects

PAGE_SIZE = 25  # rows per page of one section (each row carries its summary and buttons)

SECTIONS = (
    ("Node", "Nodes"),
    ("Pod", "Pods"),
    ("PriorityClass", "Priority classes"),
    ("PodDisruptionBudget", "Pod disruption budgets"),
)


@dataclass(frozen=True)
class Listing:
    """One page of a section's objects, with the search that selected them."""

    slug: str  # "node", "pod", ..., "other"
    page: Page
    query: str

    @property
    def rows(self) -> Any:
        return self.page.items

    @property
    def total(self) -> int:
        return self.page.total


def listing(scenario: Any, slug: str, params: Mapping[str, Any] | None = None) -> Listing:
    """Page `page` of section `slug`, narrowed by `q` (both from `params`; page 1, no search
    when not given). Counts and reads only that page's rows."""
    query = param(params, "q")
    objects = section_objects(scenario=scenario, section=slug, query=query)
    total = objects.count()
    pages = max(1, -(-total // PAGE_SIZE))
    number = min(max(1, int_param(params, "page")), pages)
    start = (number - 1) * PAGE_SIZE
    rows = list(objects[start : start + PAGE_SIZE]) if total else []
    return Listing(slug=slug, page=Page(items=rows, number=number, pages=pages, total=total, size=PAGE_SIZE),
                   query=query)


def section_slugs() -> tuple[str, ...]:
    return tuple(SECTION_KINDS)
