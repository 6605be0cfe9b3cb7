"""Go integer arithmetic where it differs from Python's.

Go's `/` on integers truncates toward zero while Python's `//` floors; scores are computed with
int64 arithmetic upstream, so every division whose operands may be negative goes through here.
"""

import math


def go_div(a: int, b: int) -> int:
    """`a / b` for Go integers (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_round(x: float) -> int:
    """`math.Round`: halves away from zero (Python's round() is banker's rounding)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)
