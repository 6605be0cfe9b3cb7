"""Axes for the metrics page's server-drawn charts: round tick values and how wide their labels are.

A chart whose top is its largest value labels that value alone (7, 13, 0.0417...), which says
little; ticks on 1, 2 or 5 times a power of ten let a reader interpolate. The label widths are
estimated from the font size (the SVG is drawn on the server, there is no text metric to ask),
so the left margin grows with the longest label instead of clipping it.
"""

from __future__ import annotations

import math

FONT = 12  # tick label size, in viewBox units
CHAR_W = 0.62 * FONT  # a generous average advance for digits and lower-case letters at that size


def nice_ticks(top: float, *, most: int = 5, integer: bool = False) -> list[float]:
    """0 and round values up to the first one at or above `top`, at most `most` + 1 of them.

    `integer` keeps the spacing a whole number (counts of pods or attempts have no 0.5)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / most
    magnitude = 10 ** math.floor(math.log10(raw))
    spacing = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    if integer:
        spacing = max(1.0, math.ceil(spacing))
    count = math.ceil(top / spacing - 1e-9)
    return [round(i * spacing, 10) for i in range(count + 1)]


def label(value: float) -> str:
    """A tick's text: whole numbers without a point, thousands grouped, others to 4 significant digits."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.4g}"


def text_width(text: str, font: float = FONT) -> float:
    """The estimated width of `text` in viewBox units at `font` (see CHAR_W)."""
    return len(text) * 0.62 * font


def fit(text: str, width: float, font: float = FONT) -> str:
    """`text` shortened with an ellipsis so that it fits in `width` (its full form stays in the
    tooltip and the value table)."""
    room = int(width // (0.62 * font))
    return text if len(text) <= room else text[: max(room - 1, 1)] + "…"
