"""A learner's progress along the learning path, read from their Django session.

Progress is the learner's own and anonymous: it lives in their session (written by
playground.services.lesson_progress), never in the database, and a reader never fails a page:
a session that cannot be read is no progress yet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.models import Scenario

SESSION_KEY = "learning_path"


@dataclass(frozen=True)
class Progress:
    opened: tuple[str, ...] = ()  # gallery slugs, in the order first opened
    finished: frozenset[str] = frozenset()
    answered: dict[str, int] = field(default_factory=dict)  # slug: predictions answered
    last: str = ""  # the lesson opened most recently

    def status(self, slug: str) -> str:
        """"finished", "started" (opened or answered, not finished) or "new"."""
        if slug in self.finished:
            return "finished"
        if slug in self.opened or self.answered.get(slug):
            return "started"
        return "new"


def stored(session: Any) -> dict[str, Any]:
    """The raw mapping kept in the session (a copy: writers store a new one)."""
    try:
        raw = session.get(SESSION_KEY) or {}
    except Exception:  # noqa: BLE001 - an unreadable session means no progress
        return {}
    return dict(raw) if isinstance(raw, dict) else {}


def progress_of(session: Any) -> Progress:
    raw = stored(session)
    answered = raw.get("answered") if isinstance(raw.get("answered"), dict) else {}
    return Progress(
        opened=tuple(s for s in raw.get("opened") or () if isinstance(s, str)),
        finished=frozenset(s for s in raw.get("finished") or () if isinstance(s, str)),
        answered={k: len(v) for k, v in answered.items() if isinstance(v, list)},
        last=str(raw.get("last") or ""),
    )


def gallery_slug_of_run(run: Any) -> str:
    """The gallery lesson a run plays ("" for a run of the learner's own scenario)."""
    if getattr(run, "scenario_id", None) is None:
        return ""
    slug = Scenario.objects.filter(pk=run.scenario_id, is_gallery=True).values_list("gallery_slug", flat=True).first()
    return slug or ""
