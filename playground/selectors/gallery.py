"""The teaching gallery as files: its built-in scenarios, playground/gallery/*.yaml, read.

Each file is an ordinary scenario (multi-document YAML) whose leading comment block is a small
YAML mapping with `title`, `order`, `chapter` (playground.chapters), `teaches` (one line on what
the lesson teaches, never what happens: it is on the lesson's card before the learner predicts)
and `explanation` (what happens, shown once the lesson is done). Storing them as scenarios is
services/gallery.py's `seed`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

GALLERY_DIR = Path(__file__).resolve().parent.parent / "gallery"


@dataclass(frozen=True)
class GalleryEntry:
    slug: str
    title: str
    order: int
    explanation: str
    text: str
    path: Path
    # Machine-checkable claims of the explanation (`# expect:`), checked by a test that runs the
    # scenario: bound {pod: node}, pending {pod: message part}, deleted {pod: by}, nodeCounts
    # {node: bound pods}, events [reasons], eventTimes {pod: eviction time}, filterCutoff, nodes,
    # extender ("running": the claims hold with the sample extender up).
    expect: dict = field(default_factory=dict)
    # `# feature-gates:` (e.g. "GenericWorkload=true,GangScheduling=true"): the gates a run of the
    # scenario starts with (prefilled in the start form) and the claims are checked with.
    feature_gates: str = ""
    # The learning path: the chapter's slug (playground.chapters) and the card's one line.
    chapter: str = ""
    teaches: str = ""
    # How many predictions the lesson asks (steps with `predict`).
    questions: int = 0

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def read_header(text: str) -> dict:
    """The leading `# key: value` comment block of a gallery file, as a mapping: the engine's
    parser, which the command line reads the same header with (its `# feature-gates:`)."""
    from scheduler_core.loader.scenario_header import read_header as engine_read_header

    return engine_read_header(text)


def gallery_entries(directory: Path = GALLERY_DIR) -> list[GalleryEntry]:
    entries = []
    for path in sorted(directory.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        header = read_header(text)
        entries.append(
            GalleryEntry(
                slug=path.stem,
                title=str(header.get("title") or path.stem),
                order=int(header.get("order") or 0),
                explanation=str(header.get("explanation") or "").strip(),
                text=text,
                path=path,
                expect=dict(header.get("expect") or {}),
                feature_gates=str(header.get("feature-gates") or ""),
                chapter=str(header.get("chapter") or ""),
                teaches=str(header.get("teaches") or "").strip(),
                questions=_questions(text, path.name),
            )
        )
    return sorted(entries, key=lambda e: (e.order, e.slug))


def _questions(text: str, source: str) -> int:
    """The number of predictions the file's lesson asks (0 when it has none or cannot be read:
    `seed` reports a broken file, the page must still render)."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.api.lesson import lessons_of_text

    try:
        lessons = lessons_of_text(text, source=source)
    except ScenarioError:
        return 0
    return sum(1 for lesson in lessons for step in lesson.steps if step.predict is not None)


_CACHE: dict[str, tuple[tuple, list[GalleryEntry]]] = {}


def cached_gallery_entries(directory: Path = GALLERY_DIR) -> list[GalleryEntry]:
    """`gallery_entries`, read again only when a file changed (name, size or modification time):
    the home page and the gallery index list every lesson on each request."""
    signature = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(directory.glob("*.yaml")))
    hit = _CACHE.get(str(directory))
    if hit is not None and hit[0] == signature:
        return hit[1]
    entries = gallery_entries(directory)
    _CACHE[str(directory)] = (signature, entries)
    return entries
