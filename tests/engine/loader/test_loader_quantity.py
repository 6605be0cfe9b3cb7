"""Quantity parsing as apimachinery's ParseQuantity does it, and exact formatting."""

from fractions import Fraction as F

import pytest

from scheduler_core.api.quantity import QuantityError, format_quantity, parse_quantity, round_up_milli

GOOD = [
    ("0", F(0)),
    ("1", F(1)),
    ("500m", F(1, 2)),
    ("1500m", F(3, 2)),
    ("1.5", F(3, 2)),
    ("0.1", F(1, 10)),
    (".5", F(1, 2)),
    ("1.", F(1)),
    ("007", F(7)),
    ("+3", F(3)),
    ("-3", F(-3)),
    ("100Ki", F(102400)),
    ("1Ki", F(1024)),
    ("1Mi", F(2**20)),
    ("1Gi", F(2**30)),
    ("1Ti", F(2**40)),
    ("1Pi", F(2**50)),
    ("1Ei", F(2**60)),
    (".5Gi", F(2**29)),
    ("1.5Gi", F(3 * 2**29)),
    ("1k", F(1000)),
    ("1M", F(10**6)),
    ("1G", F(10**9)),
    ("1T", F(10**12)),
    ("1P", F(10**15)),
    ("1E", F(10**18)),
    ("1n", F(1, 10**9)),
    ("1u", F(1, 10**6)),
    ("2e3", F(2000)),
    ("2E3", F(2000)),
    ("1e+3", F(1000)),
    ("15e-1", F(3, 2)),
    # finer than 1n rounds away from zero to the next nano
    ("0.0000000001", F(1, 10**9)),
    ("-0.0000000001", F(-1, 10**9)),
    ("1.0000000001", F(1000000001, 10**9)),
    ("1e-20", F(1, 10**9)),
    # upstream quirks: empty mantissa reads as zero on its fast path
    ("+", F(0)),
    ("-", F(0)),
    ("Gi", F(0)),
    ("m", F(0)),
    (".", F(0)),
    # the exponent is kept in an int32: 999999999999 wraps to a large negative exponent
    ("1e999999999999", F(1, 10**9)),
    # binary values are capped at 2^63-1, not rejected
    ("99999999999999999999999Ei", F(2**63 - 1)),
    # bare YAML numbers
    (2, F(2)),
    (1.5, F(3, 2)),
    (0.1, F(1, 10)),
]

BAD = ["", "abc", "1ki", "1mi", "1 Gi", "1Gi5", "1e", "1.5.5", "--1", "e-20", "Ei", "1x",
       "12345678901234567890", "1e1000", None, True, [], {}]


@pytest.mark.parametrize("text,expected", GOOD)
def test_parse(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("text", BAD)
def test_parse_rejects(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize("text,expected", GOOD)
def test_format_round_trips(text, expected):
    assert parse_quantity(format_quantity(expected)) == expected


@pytest.mark.parametrize("value,text", [
    (F(0), "0"), (F(4 * 2**30), "4Gi"), (F(1500), "1500"), (F(1000), "1k"), (F(10**18), "1E"),
    (F(3, 2), "1500m"), (F(1, 10**6), "1u"), (F(1, 10**9), "1n"), (F(-1, 2), "-500m"),
    (F(110), "110"),
])
def test_format(value, text):
    assert format_quantity(value) == text


def test_format_rejects_sub_nano():
    with pytest.raises(ValueError):
        format_quantity(F(1, 3))


@pytest.mark.parametrize("value,expected", [
    (F(1, 10**4), F(1, 1000)), (F(1, 2), F(1, 2)), (F(15001, 10**4), F(1501, 1000)), (F(3), F(3)),
])
def test_round_up_milli(value, expected):
    assert round_up_milli(value) == expected
