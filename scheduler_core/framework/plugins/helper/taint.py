"""Taint/toleration helpers (upstream helper/taint.go plus component-helpers' toleration checks).

Only NoSchedule and NoExecute taints keep a pod off a node; PreferNoSchedule only scores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from scheduler_core.api.types import TAINT_EFFECT_NO_EXECUTE, TAINT_EFFECT_NO_SCHEDULE, Taint, Toleration

TaintFilter = Callable[[Taint], bool]


def _do_not_schedule(t: Taint) -> bool:
    return t.effect == TAINT_EFFECT_NO_SCHEDULE or t.effect == TAINT_EFFECT_NO_EXECUTE


def do_not_schedule_taints_filter_func() -> TaintFilter:
    """The taints that reject scheduling a pod on a node: NoSchedule and NoExecute."""
    return _do_not_schedule


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint,
                               comparison_operators: bool = False) -> bool:
    """v1helper.TolerationsTolerateTaint: any toleration tolerating the taint (Gt/Lt only with
    TaintTolerationComparisonOperators)."""
    if comparison_operators:
        return any(t.tolerates_taint_with(taint, True) for t in tolerations)
    for t in tolerations:
        if t.tolerates_taint(taint):
            return True
    return False


def find_matching_untolerated_taint(
    taints: Iterable[Taint], tolerations: list[Toleration], inclusion_filter: TaintFilter | None,
    comparison_operators: bool = False,
) -> Taint | None:
    """The first taint passing the filter that no toleration tolerates, or None."""
    for taint in taints:
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint, comparison_operators):
            return taint
    return None
