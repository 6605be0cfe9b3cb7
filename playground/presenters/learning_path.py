"""The learning path as the home page and the gallery index show it: the gallery's lessons in
chapters (playground.chapters), each a short card saying what it teaches (never what happens:
the card is read before the learner predicts), the learner's progress on it, the lesson to do
next, and the search and filters of the gallery index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.chapters import CHAPTER_BY_SLUG, CHAPTERS, Chapter
from playground.selectors.gallery import GalleryEntry
from playground.selectors.lesson_progress import Progress

STATUS_LABELS = {"new": "", "started": "started", "finished": "done ✓"}


@dataclass(frozen=True)
class Card:
    slug: str
    title: str
    teaches: str
    chapter: Chapter
    questions: int
    status: str  # "new", "started", "finished"
    answered: int

    @property
    def status_label(self) -> str:
        return STATUS_LABELS[self.status]

    @property
    def is_challenge(self) -> bool:
        return self.chapter.slug == "challenges"


def path_order(entries: list[GalleryEntry]) -> list[GalleryEntry]:
    """Lessons in teaching order: chapter by chapter, then each file's `order`. A file naming no
    known chapter comes last (the gallery's test refuses it; the page still lists it)."""
    rank = {c.slug: i for i, c in enumerate(CHAPTERS)}
    return sorted(entries, key=lambda e: (rank.get(e.chapter, len(CHAPTERS)), e.order, e.slug))


def _card(entry: GalleryEntry, progress: Progress) -> Card:
    chapter = CHAPTER_BY_SLUG.get(entry.chapter) or Chapter(entry.chapter or "other", "More lessons", "")
    return Card(
        slug=entry.slug,
        title=entry.title,
        teaches=entry.teaches,
        chapter=chapter,
        questions=entry.questions,
        status=progress.status(entry.slug),
        answered=progress.answered.get(entry.slug, 0),
    )


def next_lesson(cards: list[Card], progress: Progress) -> Card | None:
    """The lesson to suggest: the one the learner opened last, unless finished; else the first
    unfinished one after the last finished (in path order); else the first unfinished at all."""
    by_slug = {c.slug: c for c in cards}
    last = by_slug.get(progress.last)
    if last is not None and last.status != "finished":
        return last
    done = [i for i, c in enumerate(cards) if c.status == "finished"]
    after = cards[done[-1] + 1:] if done else cards
    return next((c for c in after if c.status != "finished"), None) or next(
        (c for c in cards if c.status != "finished"), None
    )


def _matches(card: Card, words: list[str]) -> bool:
    haystack = f"{card.title} {card.teaches} {card.chapter.title}".casefold()
    return all(w in haystack for w in words)


def learning_path(entries: list[GalleryEntry], progress: Progress, filters: dict[str, str] | None = None) -> dict[str, Any]:
    """The chapters with their cards (only the cards the filters keep; a chapter left without
    cards is dropped), the next lesson, and the counts the page states."""
    filters = filters or {}
    cards = [_card(e, progress) for e in path_order(entries)]
    words = filters.get("q", "").casefold().split()
    kept = [
        c
        for c in cards
        if (not words or _matches(c, words))
        and (not filters.get("chapter") or c.chapter.slug == filters["chapter"])
        and (not filters.get("status") or c.status == filters["status"])
    ]
    chapters: list[dict[str, Any]] = []
    for card in kept:
        if not chapters or chapters[-1]["chapter"] != card.chapter:
            everyone = [c for c in cards if c.chapter == card.chapter]
            chapters.append({
                "chapter": card.chapter,
                "cards": [],
                "total": len(everyone),
                "finished": sum(1 for c in everyone if c.status == "finished"),
            })
        chapters[-1]["cards"].append(card)
    return {
        "chapters": chapters,
        "next": next_lesson(cards, progress),
        "shown": len(kept),
        "total": len(cards),
        "finished": sum(1 for c in cards if c.status == "finished"),
        "started": sum(1 for c in cards if c.status == "started"),
        "filtered": any(filters.get(k) for k in ("q", "chapter", "status")),
    }
