"""Plugin verdicts: upstream's `fwk.Status` and its codes.

A plugin answers every call with a Status. `None` stands for Success everywhere, exactly as a nil
*Status does upstream, so the hot path allocates nothing for the common answer.
"""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        """The name upstream prints (`Unschedulable`, `UnschedulableAndUnresolvable`, ...)."""
        return _CODE_LABELS[self]


_CODE_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


class Status:
    """A non-success verdict: a code, human-readable reasons and the plugin that gave it."""

    __slots__ = ("code", "reasons", "plugin", "err", "cause")

    def __init__(self, code: Code, *reasons: str, plugin: str = "", err: str = "") -> None:
        self.code = code
        self.reasons: list[str] = list(reasons)
        self.plugin = plugin
        self.err = err
        self.cause: object | None = None  # the error behind the status (upstream WithError)

    @classmethod
    def error(cls, err: str, plugin: str = "") -> Status:
        """`fwk.AsStatus(err)`: an internal error; its message is the only reason."""
        return cls(Code.ERROR, err, plugin=plugin, err=err)

    def with_plugin(self, plugin: str) -> Status:
        self.plugin = plugin
        return self

    def message(self) -> str:
        """Reasons joined with ", " as upstream's Status.Message does."""
        return ", ".join(self.reasons)

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (upstream IsRejected)."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_wait(self) -> bool:
        return self.code == Code.WAIT

    def to_json(self) -> dict:
        return {"code": self.code.label, "reasons": list(self.reasons), "plugin": self.plugin}

    def __repr__(self) -> str:
        return f"Status({self.code.label}, {self.reasons!r}, plugin={self.plugin!r})"


def is_success(status: Status | None) -> bool:
    """nil-safe success check, like upstream's `status.IsSuccess()` on a nil pointer."""
    return status is None or status.code == Code.SUCCESS


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code
