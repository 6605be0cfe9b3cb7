"""Recording a learner's progress along the learning path in their Django session: the lessons
they opened, the predictions they answered, the lessons they finished (read back by
playground.selectors.lesson_progress). Nothing here touches the database: progress is the
learner's own, kept as long as their session."""

from __future__ import annotations

from typing import Any

from playground.selectors.lesson_progress import SESSION_KEY, gallery_slug_of_run, stored

# A session's lists stay small whatever a client sends: there are ~40 lessons.
MAX_SLUGS = 200
MAX_ANSWERS_PER_LESSON = 100


def _save(session: Any, raw: dict[str, Any]) -> None:
    session[SESSION_KEY] = raw


def lesson_opened(session: Any, slug: str) -> None:
    """The learner opened a lesson (its gallery address): it is "started" and the next suggested."""
    raw = stored(session)
    opened = list(raw.get("opened") or [])
    if slug not in opened and len(opened) < MAX_SLUGS:
        opened.append(slug)
    raw.update(opened=opened, last=slug)
    _save(session, raw)


def prediction_answered(session: Any, slug: str, index: int) -> None:
    """The learner locked in an answer to the lesson's stop `index`."""
    raw = stored(session)
    answered = dict(raw.get("answered") or {})
    mine = list(answered.get(slug) or [])
    if index not in mine and len(mine) < MAX_ANSWERS_PER_LESSON and len(answered) < MAX_SLUGS:
        mine.append(index)
    answered[slug] = mine
    opened = list(raw.get("opened") or [])
    if slug not in opened and len(opened) < MAX_SLUGS:
        opened.append(slug)
    raw.update(answered=answered, opened=opened, last=slug)
    _save(session, raw)


def lesson_finished(session: Any, slug: str) -> None:
    """The learner reached the lesson's last stop. Written only when it changes something: the
    run page calls this on every view of a finished lesson."""
    raw = stored(session)
    finished = list(raw.get("finished") or [])
    if slug in finished or len(finished) >= MAX_SLUGS:
        return
    finished.append(slug)
    raw["finished"] = finished
    _save(session, raw)


def run_prediction_answered(session: Any, run: Any, index: int) -> None:
    """A prediction locked in on a run page: counted for the run's gallery lesson, if it is one."""
    slug = gallery_slug_of_run(run)
    if slug:
        prediction_answered(session, slug, index)


def run_page_seen(session: Any, run: Any, lesson: dict[str, Any] | None) -> None:
    """A run page shown with its lesson panel (playground.presenters.runs.lesson): once no stop
    is ahead, the run's gallery lesson is finished."""
    if not lesson or lesson.get("upcoming") is not None:
        return
    slug = gallery_slug_of_run(run)
    if slug:
        lesson_finished(session, slug)
