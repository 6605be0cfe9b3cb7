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


class _SharedStatus(Status):
    """A Status shared by every caller (SKIP): assigning to it raises, so no caller can change
    the answer the next one reads."""

    __slots__ = ()

    def __init__(self, code: Code) -> None:
        for name, v in (("code", code), ("reasons", []), ("plugin", ""), ("err", ""), ("cause", None)):
            object.__setattr__(self, name, v)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"the shared {self.code.label} status cannot change ({name})")

    def __reduce__(self) -> str:
        return "SKIP"  # pickled and copied as the module's one object

    def __copy__(self) -> _SharedStatus:
        return self

    def __deepcopy__(self, memo: dict) -> _SharedStatus:
        return self


# What PreFilter, PreScore and PreBindPreFlight answer when a plugin has nothing to do for the
# pod: a dozen times a cycle, so one shared object instead of a new one each time. The
# framework only reads these (it records the plugin as skipped and goes on).
SKIP: Status = _SharedStatus(Code.SKIP)


def is_success(status: Status | None) -> bool:
    """nil-safe success check, like upstream's `status.IsSuccess()` on a nil pointer."""
    return status is None or status.code == Code.SUCCESS


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code
