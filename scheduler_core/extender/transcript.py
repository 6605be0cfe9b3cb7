"""The record of every HTTP exchange with extenders, which makes runs with extenders
reproducible: a recording run writes each call into an `ExtenderTranscript`; a run given that
transcript in REPLAY mode answers every call from it and makes no HTTP call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scheduler_core.extender.policy import ExtenderPolicy


RECORD = "record"
REPLAY = "replay"


class ExtenderError(Exception):
    """An extender call failed; the message is the error text upstream would report."""


class ExtenderCall:
    """One HTTP exchange with an extender, as recorded.

    `status` and `body` are what the service answered (any status, any bytes: decoding happens
    again on replay, so a bad answer fails the same way); `error` is a transport failure
    (unreachable, timeout) instead. `latency_ms` is wall time, kept for display only."""

    __slots__ = ("extender", "verb", "digest", "status", "body", "error", "latency_ms")

    def __init__(self, extender: str, verb: str, digest: str, status: int | None = None,
                 body: str | None = None, error: str | None = None, latency_ms: float = 0.0) -> None:
        self.extender = extender
        self.verb = verb
        self.digest = digest
        self.status = status
        self.body = body
        self.error = error
        self.latency_ms = latency_ms

    def __getstate__(self) -> dict[str, Any]:
        return self.to_json()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k in self.__slots__:
            setattr(self, k, state[k])

    def to_json(self) -> dict[str, Any]:
        return {"extender": self.extender, "verb": self.verb, "digest": self.digest, "status": self.status,
                "body": self.body, "error": self.error, "latency_ms": self.latency_ms}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExtenderCall:
        return cls(str(d["extender"]), str(d["verb"]), str(d["digest"]), d.get("status"), d.get("body"),
                   d.get("error"), float(d.get("latency_ms") or 0.0))

    def __repr__(self) -> str:
        what = self.error if self.error is not None else f"{self.status} {len(self.body or '')}B"
        return f"ExtenderCall({self.extender} {self.verb} {self.digest[:8]}: {what})"


class ExtenderTranscript:
    """The recorded extender calls of a run, and how the run uses them.

    mode "record" (default): a call first looks for an unused recorded call with the same
    extender, verb and request digest (so a transcript that already holds calls replays them and
    records only what is new), otherwise it goes over HTTP and is appended.
    mode "replay": no HTTP at all; a call the transcript does not hold fails with a clear error
    (handled like any extender error: skipped for ignorable extenders, otherwise the cycle fails).
    Identical requests are answered by their recordings in recording order."""

    def __init__(self, calls: Iterable[ExtenderCall] = (), mode: str = RECORD,
                 policy: ExtenderPolicy | None = None) -> None:
        if mode not in (RECORD, REPLAY):
            raise ValueError(f"extender transcript mode must be {RECORD!r} or {REPLAY!r}, not {mode!r}")
        self.mode = mode
        # Which URLs a recording call may reach (None: loopback only); see extender.policy.
        self.policy = policy
        self.calls: list[ExtenderCall] = list(calls)
        self._used: dict[tuple[str, str, str], int] = {}  # key -> how many recordings were used

    def lookup(self, extender: str, verb: str, digest: str) -> ExtenderCall | None:
        key = (extender, verb, digest)
        skip = self._used.get(key, 0)
        for c in self.calls:
            if c.extender == extender and c.verb == verb and c.digest == digest:
                if skip == 0:
                    self._used[key] = self._used.get(key, 0) + 1
                    return c
                skip -= 1
        return None

    def record(self, call: ExtenderCall) -> None:
        self.calls.append(call)
        key = (call.extender, call.verb, call.digest)
        self._used[key] = self._used.get(key, 0) + 1

    def to_json(self) -> list[dict[str, Any]]:
        """Plain JSON (what the web app stores next to a run's event log)."""
        return [c.to_json() for c in self.calls]

    @classmethod
    def from_json(cls, data: Iterable[dict[str, Any]], mode: str = REPLAY) -> ExtenderTranscript:
        return cls([ExtenderCall.from_json(d) for d in data], mode=mode)

    def __len__(self) -> int:
        return len(self.calls)

    def __repr__(self) -> str:
        return f"ExtenderTranscript(mode={self.mode!r}, calls={len(self.calls)})"
