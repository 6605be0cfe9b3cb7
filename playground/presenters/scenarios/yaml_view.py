"""The scenario's YAML, shown in bounded pieces.

The editor embeds the whole YAML (to edit and re-import as one text) only for a small scenario;
a big one gets a link to the YAML view, which shows and edits DOCS_PER_PAGE documents at a time,
and the streamed download. A 5,000-node scenario's YAML is ~4 MB: as one textarea it made the
page take seconds to show and every editor answer megabytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.manifests import build_yaml
from playground.presenters.runs.paging import Page
from playground.selectors.scenarios import scenario_documents, scenario_object_position, scenario_yaml

EMBED_MAX_OBJECTS = 200  # more objects than this: the editor links to the YAML view instead
EMBED_MAX_CHARS = 200_000  # ...or when their YAML is longer than this
DOCS_PER_PAGE = 50


@dataclass(frozen=True)
class YamlPanel:
    embedded: bool
    text: str
    objects: int
    per_page: int = DOCS_PER_PAGE


def yaml_panel(scenario: Any, objects: int) -> YamlPanel:
    """What the editor's YAML panel holds for a scenario of `objects` objects."""
    if objects > EMBED_MAX_OBJECTS:
        return YamlPanel(embedded=False, text="", objects=objects)
    text = scenario_yaml(scenario=scenario)
    if len(text) > EMBED_MAX_CHARS:
        return YamlPanel(embedded=False, text="", objects=objects)
    return YamlPanel(embedded=True, text=text, objects=objects)


@dataclass(frozen=True)
class YamlPage:
    """Documents `first` .. `first + count - 1` of the scenario (0-based) as one YAML text."""

    page: Page
    first: int
    count: int
    text: str

    @property
    def first_document(self) -> int:
        return self.first + 1


def yaml_page(scenario: Any, objects: int, number: int) -> YamlPage:
    """Page `number` (1-based, clamped) of the scenario's documents."""
    pages = max(1, -(-objects // DOCS_PER_PAGE))
    number = min(max(1, number), pages)
    first = (number - 1) * DOCS_PER_PAGE
    rows = scenario_documents(scenario=scenario, first=first, count=DOCS_PER_PAGE)
    page = Page(items=rows, number=number, pages=pages, total=objects, size=DOCS_PER_PAGE)
    return YamlPage(page=page, first=first, count=len(rows), text=build_yaml(row.manifest for row in rows))


def page_of_position(position: int) -> int:
    """The YAML view's page that holds the document at `position` (0-based)."""
    return max(0, position) // DOCS_PER_PAGE + 1


def page_of_object(scenario: Any, object_id: Any) -> int:
    """The YAML view's page that holds the object `object_id` (1 when it is not found)."""
    position = scenario_object_position(scenario=scenario, object_id=object_id)
    return 1 if position is None else page_of_position(position)
