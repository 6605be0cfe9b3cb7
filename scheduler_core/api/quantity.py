"""Kubernetes resource quantities ("500m", "1Gi", "2e3", ...) as exact Fractions.

Why exact: the scheduler compares and sums quantities (requests against allocatable); upstream's
`resource.Quantity` is an exact decimal, so floats would make borderline fits disagree with it.

The accepted grammar and the rounding follow apimachinery's ParseQuantity:

* an optional sign, digits with an optional fraction ("1", "1.5", ".5", "1." are all numbers;
  leading zeros are ignored; a bare sign or a bare suffix such as "Gi" reads as 0, as upstream);
* a suffix: none, a decimal SI one (n u m k M G T P E), a binary one (Ki Mi Gi Ti Pi Ei) or a
  decimal exponent (e3, E-2, e+6);
* values finer than 1n (10^-9) are rounded away from zero to the next nano, binary-suffixed
  values are capped at 2^63-1 like upstream does.

Deliberate tightening: magnitudes of 2^63 base units or more are rejected ("absurd size"), since
upstream's int64 accessors (MilliValue/Value) cannot represent them and the scheduler would
overflow.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

__all__ = [
    "QuantityError",
    "parse_quantity",
    "format_quantity",
    "round_up_milli",
    "MAX_QUANTITY",
]


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity (message says why)."""


MAX_QUANTITY = Fraction(2**63 - 1)
_BINARY_CAP = Fraction(2**63 - 1)
_NANO = Fraction(1, 10**9)

_DECIMAL_SUFFIXES = {
    "": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
# Significant digits kept exactly: a value below 10^40 has all its digits above 10^-50 among its
# first 89 (a 90th stands for "some non-zero digit further on", which only rounds up to 1n).
_KEPT_DIGITS = 89
_DIGITS = frozenset("0123456789")


def _wrap_int32(n: int) -> int:
    """Upstream stores an exponent suffix in an int32 after parsing it as int64."""
    n &= 0xFFFFFFFF
    return n - 0x100000000 if n >= 0x80000000 else n


def _split(text: str) -> tuple[bool, str, str, str]:
    """Split into (negative, integer digits, fraction digits, suffix) or raise QuantityError."""
    i, end = 0, len(text)
    negative = False
    if i < end and text[i] in "+-":
        negative = text[i] == "-"
        i += 1
    start = i
    while i < end and text[i] in _DIGITS:
        i += 1
    whole = text[start:i]
    frac = ""
    if i < end and text[i] == ".":
        i += 1
        fstart = i
        while i < end and text[i] in _DIGITS:
            i += 1
        frac = text[fstart:i]
    suffix_start = i
    while i < end and text[i] in _SUFFIX_CHARS:
        i += 1
    if i < end and text[i] in "+-":
        i += 1
    while i < end and text[i] in _DIGITS:
        i += 1
    if i != end:
        raise QuantityError(
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )
    return negative, whole, frac, text[suffix_start:end]


@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Fraction:
    if not text:
        raise QuantityError("quantities must match the regular expression "
                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    negative, whole, frac, suffix = _split(text)
    binary = False
    if suffix in _DECIMAL_SUFFIXES:
        exp10, exp2 = _DECIMAL_SUFFIXES[suffix], 0
    elif suffix in _BINARY_SUFFIXES:
        exp10, exp2, binary = 0, _BINARY_SUFFIXES[suffix], True
    elif len(suffix) > 1 and suffix[0] in "eE":
        body = suffix[1:]
        digits = body[1:] if body[0] in "+-" else body
        if not digits or not digits.isdigit():
            raise QuantityError("unable to parse quantity's suffix")
        exp = int(body)
        if not -(2**63) <= exp < 2**63:
            raise QuantityError("unable to parse quantity's suffix")
        exp10, exp2 = _wrap_int32(exp), 0
    else:
        raise QuantityError("unable to parse quantity's suffix")

    stripped = whole.lstrip("0")
    mantissa_digits = stripped + frac
    # Upstream's slow path (needed when the value has more precision than int64 scaled by
    # nano can hold, or is binary with a fraction) parses the number text itself and rejects
    # a number without any digit; its fast path reads an empty mantissa as 0.
    scale = exp10 - len(frac)
    if binary:
        fast = not frac and (15 - max(len(stripped), 1) - int(exp2 * 3 / 10) - 1) >= 0
    else:
        fast = (18 - max(len(stripped), 1) - len(frac)) >= 0 and scale >= -9
    if not fast and not (whole or frac):
        raise QuantityError("unable to parse numeric part of quantity")

    significant = mantissa_digits.lstrip("0")
    if not significant:
        return Fraction(0)
    ndigits = len(significant)
    # Only the size is needed to refuse (or cap, or round up to 1n) a value of many digits;
    # converting them all first would cost time quadratic in their number, and Python refuses
    # texts of more than 4,300 digits outright.
    if binary and ndigits + scale > 25:
        value = _BINARY_CAP
        return -value if negative else value
    if ndigits + scale > 40:
        raise QuantityError("quantity is too large")
    if ndigits + scale < -30:
        return -_NANO if negative else _NANO
    if ndigits > _KEPT_DIGITS:  # digits far below 1n change only whether the value rounds up
        tail = "1" if significant[_KEPT_DIGITS:].strip("0") else "0"
        scale += ndigits - _KEPT_DIGITS - 1
        significant = significant[:_KEPT_DIGITS] + tail
    value = Fraction(int(significant)) * (Fraction(10) ** scale) * (2**exp2)
    if value.denominator != 1 and (value / _NANO).denominator != 1:
        value = Fraction(-((-value.numerator * 10**9) // value.denominator), 10**9)
    if binary and value > _BINARY_CAP:
        value = _BINARY_CAP
    if value > MAX_QUANTITY:
        raise QuantityError("quantity is too large")
    return -value if negative else value


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity as written in a manifest (string, int or float) into base units.

    Numbers unquoted in YAML reach the apiserver as JSON numbers, which Quantity parses from their
    text; we do the same with the number's shortest decimal representation.
    """
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"must be a quantity string, not {_type_name(value)}")
    if isinstance(value, int):
        if abs(value) > MAX_QUANTITY:
            raise QuantityError("quantity is too large")
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise QuantityError("unable to parse numeric part of quantity")
        return _parse_text(repr(value))
    if isinstance(value, str):
        return _parse_text(value)
    raise QuantityError(f"must be a quantity string, not {_type_name(value)}")


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def round_up_milli(value: Fraction) -> Fraction:
    """Round away from zero to a multiple of 1m, as the apiserver's ResourceList defaulting does."""
    scaled = value * 1000
    if scaled.denominator == 1:
        return value
    if value > 0:
        return Fraction(-((-scaled.numerator) // scaled.denominator), 1000)
    return Fraction(-(-scaled.numerator // scaled.denominator), 1000)


_BIN_OUT = (("Ei", 60), ("Pi", 50), ("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10))
_DEC_OUT = (("E", 18), ("P", 15), ("T", 12), ("G", 9), ("M", 6), ("k", 3))


def format_quantity(value: Fraction | int) -> str:
    """A short quantity string that parses back to exactly `value`.

    Whole numbers take the shortest of their plain, binary-suffixed and decimal-suffixed forms
    ("4Gi", "1500", "1E"); fractions the coarsest of m/u/n that is exact ("1500m"). Values that are not a multiple of 1n cannot be written (the
    parser would round them), so they raise ValueError.
    """
    value = Fraction(value)
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mag = -value if value < 0 else value
    if mag.denominator == 1:
        n = mag.numerator
        best = str(n)
        for suffix, bits in _BIN_OUT:
            if n % (1 << bits) == 0:
                cand = f"{n >> bits}{suffix}"
                if len(cand) < len(best):
                    best = cand
                break
        for suffix, exp in _DEC_OUT:
            if n % 10**exp == 0:
                cand = f"{n // 10**exp}{suffix}"
                if len(cand) < len(best):
                    best = cand
                break
        return sign + best
    for suffix, exp in (("m", 3), ("u", 6), ("n", 9)):
        scaled = mag * 10**exp
        if scaled.denominator == 1:
            return f"{sign}{scaled.numerator}{suffix}"
    raise ValueError(f"{value} is not a multiple of 1n and has no exact quantity form")
