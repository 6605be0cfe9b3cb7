"""The one error type a bad scenario produces.

Why one type with fixed attributes: the CLI prints it on stderr and exits 2, the web app shows it
next to the editor; both need to point the user at the exact document, object and field.
"""

from __future__ import annotations


class ScenarioError(Exception):
    """A scenario that cannot be loaded, with where and why.

    str() is one line, e.g.
    `scenario.yaml: document 3 (Pod default/web-1): spec.containers[0].resources.requests.cpu:
    invalid quantity "abc"` (parts that are unknown are left out).
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str = "<input>",
        document: int | None = None,
        kind: str | None = None,
        name: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.document = document  # 1-based index of the YAML document
        self.kind = kind
        self.name = name  # "namespace/name" for namespaced objects, "name" otherwise
        self.field = field
        self.reason = reason
        self.line = line  # 1-based line number, for YAML syntax errors
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.document is not None:
            where = f"document {self.document}"
            if self.kind or self.name:
                obj = " ".join(x for x in (self.kind, self.name) if x)
                where += f" ({obj})"
            parts.append(where)
        elif self.kind or self.name:
            parts.append(" ".join(x for x in (self.kind, self.name) if x))
        if self.field:
            parts.append(self.field)
        parts.append(self.reason)
        return ": ".join(parts)


class LoadWarning:
    """Something accepted but not simulated, e.g. a container's livenessProbe; or (category
    "reference") a reference the API server accepts to an object the scenario lacks, whose
    reason says what the scheduler will do about it.

    Reported once per kind and field (indices dropped), at its first occurrence, with how many
    other objects have it, so a cluster dump gives a short list rather than one line per pod.
    str() is one line like ScenarioError's:
    `dump.yaml: document 1 (Pod default/web-1): spec.containers[0].livenessProbe: not simulated:
    accepted and ignored (also in 41 more Pods)`.
    """

    __slots__ = ("file", "document", "kind", "name", "field", "reason", "more", "category")

    def __init__(self, reason: str, *, file: str = "<input>", document: int | None = None,
                 kind: str | None = None, name: str | None = None, field: str | None = None,
                 category: str = "not-simulated") -> None:
        self.file = file
        self.document = document
        self.kind = kind
        self.name = name
        self.field = field
        self.reason = reason
        self.more = 0  # other objects of the same kind with the same field
        # "not-simulated" (a field the playground ignores) or "reference" (a reference to an
        # object the scenario lacks, which the API server accepts: loader/references.py)
        self.category = category

    def __str__(self) -> str:
        where = ScenarioError(self.reason, file=self.file, document=self.document,
                              kind=self.kind, name=self.name, field=self.field)
        text = str(where)
        if self.more:
            noun = self.kind or "object"
            plural = ("es" if noun.endswith("s") else "s") if self.more > 1 else ""
            text += f" (also in {self.more} more {noun}{plural})"
        return text

    def __repr__(self) -> str:
        return f"LoadWarning({str(self)!r})"


class ActionError(ValueError):
    """A live action that cannot apply to the cluster as it is now."""
