"""Lesson documents: a guided tour of a scenario, written by a teacher in the scenario's YAML.

A `Lesson` is one more document of a scenario (docs/lessons.md has the format). The engine does
not use it: the loader takes Lesson documents out of the stream before it builds the scenario
(`split_lessons`, so document numbers in error messages stay those of the file) and hands them
back on `Scenario.lessons`. The web app reads them to caption a run step by step, highlight the
panel to watch and ask the learner to predict the next decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.api.errors import ScenarioError

LESSON_API_VERSION = "playground.kube-scheduler.dev/v1"
# The panels of the run page a step may highlight.
WATCH_PANELS = (
    "queues", "cluster", "filter", "scores", "preemption", "evictions", "waiting", "pods", "events", "framework", "story",
    "devices", "storage",
)
# What a learner may be asked to predict about the step's frame.
QUESTIONS = {
    "winner": "Which node wins this cycle?",
    "rejectedBy": "Which Filter plugin rejects node {node}?",
    "victims": "Which pods does preemption delete?",
    "queue": "Where does the pod go after this attempt?",
}
POINTS = ("Pop", "PreFilter", "Filter", "PostFilter", "Score", "Select", "Bind")
MAX_CAPTION = 600
MAX_STEPS = 100


@dataclass(frozen=True)
class Prediction:
    question: str  # a key of QUESTIONS
    node: str = ""  # the node a rejectedBy question is about

    @property
    def text(self) -> str:
        return QUESTIONS[self.question].format(node=self.node)


@dataclass(frozen=True)
class LessonStep:
    caption: str
    step: int | None = None  # the run step (frame) the caption is about...
    cycle: int | None = None  # ...or the scheduling cycle
    point: str = ""  # optional: the extension point to stop at (Step extension point)
    watch: tuple[str, ...] = ()
    predict: Prediction | None = None


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str = ""
    steps: tuple[LessonStep, ...] = field(default_factory=tuple)


def _fail(source: str, document: int, name: str | None, path: str, reason: str) -> ScenarioError:
    return ScenarioError(reason, file=source, document=document, kind="Lesson", name=name, field=path)


def _step(obj: Any, path: str, err: Any) -> LessonStep:
    if not isinstance(obj, dict):
        raise err(path, f"expected a mapping (caption, step or cycle, watch, predict), got {type(obj).__name__}")
    unknown = set(obj) - {"caption", "step", "cycle", "point", "watch", "predict"}
    if unknown:
        raise err(f"{path}.{sorted(unknown)[0]}", "unknown field (allowed: caption, step, cycle, point, watch, predict)")
    caption = obj.get("caption")
    if not isinstance(caption, str) or not caption.strip():
        raise err(f"{path}.caption", "Required value: a short caption (text)")
    if len(caption) > MAX_CAPTION:
        raise err(f"{path}.caption", f"Too long: at most {MAX_CAPTION} characters")
    where: dict[str, int] = {}
    for key in ("step", "cycle"):
        value = obj.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise err(f"{path}.{key}", f"Invalid value: {value!r}: a whole number ≥ 0")
        where[key] = value
    if len(where) != 1:
        raise err(path, "Required value: exactly one of step (a run step) or cycle (a scheduling cycle)")
    point = obj.get("point") or ""
    if point and point not in POINTS:
        raise err(f"{path}.point", f'Unsupported value: "{point}": supported values: {", ".join(POINTS)}')
    watch = obj.get("watch") or []
    if isinstance(watch, str):
        watch = [watch]
    if not isinstance(watch, list) or any(w not in WATCH_PANELS for w in watch):
        raise err(f"{path}.watch", f"Unsupported value: {watch!r}: a list of {', '.join(WATCH_PANELS)}")
    predict = None
    raw = obj.get("predict")
    if raw is not None:
        if isinstance(raw, str):
            raw = {"question": raw}
        if not isinstance(raw, dict) or raw.get("question") not in QUESTIONS:
            raise err(f"{path}.predict.question", f'Unsupported value: supported values: {", ".join(QUESTIONS)}')
        node = raw.get("node") or ""
        if raw["question"] == "rejectedBy" and not (isinstance(node, str) and node):
            raise err(f"{path}.predict.node", "Required value: the node whose rejection the learner predicts")
        predict = Prediction(question=raw["question"], node=str(node))
    return LessonStep(caption=caption.strip(), point=point, watch=tuple(watch), predict=predict, **where)


def parse_lesson(obj: dict[str, Any], *, source: str = "<input>", document: int = 0) -> Lesson:
    """One Lesson document, validated: a clear error names the document and the field."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name")

    def err(path: str, reason: str) -> ScenarioError:
        return _fail(source, document, name if isinstance(name, str) else None, path, reason)

    if obj.get("apiVersion") != LESSON_API_VERSION:
        raise err("apiVersion", f'unsupported apiVersion "{obj.get("apiVersion")}" (expected {LESSON_API_VERSION})')
    if not isinstance(name, str) or not name:
        raise err("metadata.name", "Required value: the lesson's name")
    title = obj.get("title") or ""
    if not isinstance(title, str):
        raise err("title", "expected text")
    steps = obj.get("steps")
    if not isinstance(steps, list) or not steps:
        raise err("steps", "Required value: a list of steps")
    if len(steps) > MAX_STEPS:
        raise err("steps", f"Too many: at most {MAX_STEPS} steps")
    return Lesson(name=name, title=title, steps=tuple(_step(s, f"steps[{i}]", err) for i, s in enumerate(steps)))


def split_lessons(docs: list[Any], source: str = "<input>") -> tuple[list[Any], list[Lesson]]:
    """The documents with every Lesson replaced by None (numbers stay), and the Lessons parsed."""
    lessons: list[Lesson] = []
    out: list[Any] = []
    for index, doc in enumerate(docs, start=1):
        if isinstance(doc, dict) and doc.get("kind") == "Lesson":
            lessons.append(parse_lesson(doc, source=source, document=index))
            out.append(None)
        else:
            out.append(doc)
    return out, lessons


def lessons_of_text(text: str, source: str = "<input>") -> list[Lesson]:
    """The Lessons of a scenario's YAML text, reading only the documents that declare one."""
    if "Lesson" not in text:
        return []
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs: list[Any] = []
    for chunk in _documents(text):
        docs.append(yaml.load(chunk, Loader=loader) if "kind: Lesson" in chunk else {})
    return split_lessons(docs, source)[1]


def _documents(text: str) -> list[str]:
    chunks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("---"):
            chunks.append([])
        else:
            chunks[-1].append(line)
    return ["\n".join(c) for c in chunks]
