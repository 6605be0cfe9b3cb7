"""The ways a run request can fail: a message for the user (about one form field, perhaps), or
"another worker has the run"."""

from __future__ import annotations


class RunError(Exception):
    """A request that cannot be done; `message` is for the user, `field` (when set) names the
    form field it is about, so the page shows the message next to it."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class FieldError(RunError):
    """A form field's value is refused: `field` names it, so the page shows `message` beside it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class RunBusy(Exception):
    """Another worker holds the run's lock: try again shortly."""


class LeaseLost(Exception):
    """This worker's lease on the run was taken by another worker (this one looked dead, e.g.
    while Redis restarted): it stops without writing; the other one continues from the log."""
