"""DefaultNormalizeScore: scale raw scores from [0, max] to [0, max_priority], optionally reversed.

Plugins whose raw score is a count (matching preferred terms, untolerated PreferNoSchedule taints)
use it so that their weight means the same thing whatever the counts are.
"""

from __future__ import annotations

from scheduler_core.framework.plugins.helper.gomath import go_div
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import NodeScore


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status | None:
    """Normalise in place. With every raw score 0, reverse gives all nodes max_priority (nothing to
    prefer against) and the forward direction leaves them at 0."""
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return None
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        s.score = score
    return None


def default_normalize_score_values(max_priority: int, reverse: bool, scores: list[int]) -> Status | None:
    """default_normalize_score on bare scores (node order), in place."""
    n = len(scores)
    if n and scores[0] <= 0 and scores[-1] == scores[0] and scores.count(scores[0]) == n:
        # One score for every node, not above 0 (a plugin with nothing to say): max_count is 0.
        # list.count compares small ints by identity, cheaper than max() over every node.
        if reverse:
            scores[:] = [max_priority] * n
        return None
    max_count = max(scores, default=0)
    if max_count < 0:
        max_count = 0
    if max_count == 0:
        if reverse:
            scores[:] = [max_priority] * n
        return None
    if min(scores) >= 0:
        # Non-negative operands: Go's truncating division is floor division.
        if reverse:
            scores[:] = [max_priority - (max_priority * s) // max_count for s in scores]
        else:
            scores[:] = [(max_priority * s) // max_count for s in scores]
        return None
    for i in range(n):
        score = go_div(max_priority * scores[i], max_count)
        scores[i] = max_priority - score if reverse else score
    return None
