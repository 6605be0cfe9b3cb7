"""helper: DefaultNormalizeScore, BuildBrokenLinearFunction, Go arithmetic."""

from __future__ import annotations

import pytest

from scheduler_core.framework.plugins.helper.gomath import go_div, go_round
from scheduler_core.framework.plugins.helper.normalize_score import default_normalize_score
from scheduler_core.framework.plugins.helper.shape_score import FunctionShapePoint, build_broken_linear_function
from scheduler_core.framework.types import NodeScore


@pytest.mark.parametrize("scores,reverse,want", [
    ([10, 20, 30], False, [33, 66, 100]),
    ([10, 20, 30], True, [67, 34, 0]),
    ([0, 0, 0], False, [0, 0, 0]),
    ([0, 0, 0], True, [100, 100, 100]),
    ([1], False, [100]),
    ([], True, []),
])
def test_default_normalize_score(scores, reverse, want):
    ns = [NodeScore(str(i), s) for i, s in enumerate(scores)]
    assert default_normalize_score(100, reverse, ns) is None
    assert [n.score for n in ns] == want


def test_broken_linear():
    f = build_broken_linear_function([FunctionShapePoint(10, 1), FunctionShapePoint(90, 9)])
    assert [f(p) for p in (-10, 0, 10, 15, 50, 90, 100)] == [1, 1, 1, 1, 5, 9, 9]
    g = build_broken_linear_function([FunctionShapePoint(0, 100), FunctionShapePoint(100, 0)])
    assert g(1) == 99 and g(99) == 1


def test_go_math():
    assert go_div(-7, 2) == -3 and go_div(7, 2) == 3 and go_div(7, -2) == -3 and go_div(-7, -2) == 3
    assert go_round(2.5) == 3 and go_round(-2.5) == -3 and go_round(0.49999999999999994) == 0
    assert go_round(68.75) == 69 and go_round(1.5) == 2
