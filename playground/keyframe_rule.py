"""When a frame stores the whole view (a keyframe) instead of a delta.

Every KEYFRAME_EVERY frames was right for a 300-node view (a few hundred kB), but at 5,000
nodes x 150,000 pods a keyframe is a 37 MB write, paid every 50 steps by the worker and the
database. The rule is now relative to the view's size: a keyframe once the deltas stored since
the last one weigh as much as it did (JSON bytes), and at least KEYFRAME_EVERY frames apart, so
that keyframes cost at most as much as the deltas they follow (a step costs what it changed,
amortized) while a read back stays bounded: the nearest keyframe plus at most its own size in
deltas (`playground.selectors.frame_views` applies them in one pass). KEYFRAME_MAX caps the
rows a read walks back over when steps change almost nothing.

Small views keep today's layout (their deltas outweigh the keyframe within KEYFRAME_EVERY
frames); old runs' layouts read as before: the reader follows whatever chain it finds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground import frame_views

KEYFRAME_MAX = 2000  # frames between keyframes at most (the rows a read may walk back over)


def json_size(value: Any) -> int:
    """A stored value's weight: the length of its JSON text, as the database column holds it."""
    return len(json.dumps(value))


@dataclass
class KeyframeRule:
    """The writer's state between frames: the last keyframe (weighed when first needed: the
    frames after it rarely need its size, and a run's start should not pay for weighing it)
    and the chain of deltas after it."""

    keyframe: dict[str, Any] | None = None
    weighed: int = 0
    chain_bytes: int = 0
    chain_frames: int = 0

    @property
    def keyframe_bytes(self) -> int:
        if self.keyframe is not None:
            self.weighed, self.keyframe = json_size(self.keyframe), None
        return self.weighed

    def wants_keyframe(self, delta_bytes: int) -> bool:
        """Should the frame whose delta weighs `delta_bytes` store the whole view instead?"""
        if self.chain_frames + 1 >= KEYFRAME_MAX:
            return True
        if self.chain_frames + 1 < frame_views.KEYFRAME_EVERY:
            return False
        return self.chain_bytes + delta_bytes >= self.keyframe_bytes

    def stored_keyframe(self, view: dict[str, Any]) -> None:
        self.keyframe, self.weighed, self.chain_bytes, self.chain_frames = view, 0, 0, 0

    def stored_delta(self, delta_bytes: int) -> None:
        self.chain_bytes += delta_bytes
        self.chain_frames += 1

    @classmethod
    def resume(cls, deltas: Iterable[dict[str, Any]], view: dict[str, Any]) -> KeyframeRule:
        """The state after stored frames: `deltas`, the ones stored since the newest keyframe,
        and `view`, the current view, whose size stands for that keyframe's (reading back a
        37 MB keyframe to weigh it would cost more than the estimate is off by)."""
        rule = cls(keyframe=view)
        for stored in deltas:
            rule.stored_delta(json_size(stored))
        return rule
