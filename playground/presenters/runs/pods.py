"""The pods panel (partials/pods.html, pods_body.html): every pod, grouped by owner (`owners`),
and why each pending pod is pending. Up to SMALL_PODS pods the table lists them all; more are
searched (the owner's name too) and paged, the groups' headers repeated on each page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playground.presenters.runs.owners import group_pods, owner_of, replica_set_owners, rows_with_headers
from playground.presenters.runs.paging import int_param, paginate, param
from playground.selectors.frame_views import pods_by_key, pods_changed_since

if TYPE_CHECKING:
    from playground.presenters.runs.screen import Screen

SMALL_PODS = 50
POD_PAGE = 50
STATUSES = ("Pending", "Bound", "Deleted")


def pods(screen: Screen) -> list[dict[str, Any]]:
    return screen.view.get("pods", [])


def no_profile_message(pod: dict[str, Any], profiles: Any) -> str:
    """Why a pending pod that names no profile of this scheduler never gets a cycle."""
    names = ", ".join(f'"{p}"' for p in sorted(profiles or ())) or "none"
    return (f'No scheduler profile is named "{pod["schedulerName"]}" (this scheduler\'s profiles: {names}): '
            "kube-scheduler leaves the pod to the scheduler of that name, which this cluster does not run, "
            "so it stays Pending with no event.")


def _explained(screen: Screen, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**p, "message": no_profile_message(p, screen.profiles)} if p.get("schedulerName") else p for p in items]


def pending_pods(screen: Screen) -> list[dict[str, Any]]:
    return [p for p in pods(screen) if p.get("status") == "Pending"]


def many_pods(screen: Screen) -> bool:
    """The run has more pods than one table shows: the page loads the paged panel on its own,
    so a live update need not build the table at all (at 10,000 pods that is most of a render)."""
    return len(pods(screen)) > SMALL_PODS


def pod_table(screen: Screen, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A page of the pods matching `q` (in the key, node, nominated node or message) and
    `status`; all pods when the run has few."""
    view = screen.view
    everything = pods(screen)
    if not many_pods(screen):
        ordered, groups = group_pods(view, everything)
        page = paginate(ordered, 1, max(1, len(ordered)))
        return {
            "large": False,
            "page": page,
            "total": len(everything),
            "groups": list(groups.values()),
            "rows": _rows(_explained(screen, page.items), groups, view),
        }
    text, status = param(params, "q").lower(), param(params, "status")
    chosen = everything
    if status in STATUSES:
        chosen = [p for p in chosen if p.get("status") == status]
    if text:
        chosen = [
            p
            for p in chosen
            if any(text in str(p.get(k) or "").lower() for k in ("key", "node", "nominatedNodeName", "message", "owner"))
        ]
    chosen, groups = group_pods(view, chosen) if chosen is not everything else _grouped_all(view, everything)
    counts = {s: 0 for s in STATUSES}
    for group in _grouped_all(view, everything)[1].values():  # every pod, counted per group
        for name, count in group.counts:
            counts[name] = counts.get(name, 0) + count
    return {
        "large": True,
        "total": len(everything),
        "matching": len(chosen),
        "query": {"q": param(params, "q"), "status": status},
        "statuses": [(s, counts.get(s, 0)) for s in STATUSES],
        "page": (page := paginate(chosen, int_param(params, "page"), POD_PAGE)),
        "groups": list(groups.values()),
        "rows": _rows(_explained(screen, page.items), groups, view),
    }


# The whole table grouped, per view: the run page, its /pods/ page and the other viewers of the
# same step each ask for it, and at 150,000 pods grouping them costs about a second. Cached views
# are shared and never modified (selectors.frame_views), so one is known by its identity; the
# entry holds the view itself, so that identity cannot be reused while it is kept. A Step's view,
# made from the view before and a delta that kept the pods' order, gets its grouping from that
# view's: the same order with the changed pods' entries in their places and their groups'
# counts moved (a Step changes a handful of pods; summing every pod again took ~0.5 s a Step
# while the table was on screen at the envelope).
_GROUPED: dict[int, tuple[dict[str, Any], tuple[list[dict[str, Any]], dict[str, Any]], dict[str, int]]] = {}
GROUPED_KEPT = 4  # views whose grouping is kept (a few runs' heads)


def _grouped_all(view: dict[str, Any], everything: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`group_pods(view, everything)`, computed once per view (callers only read the result)."""
    hit = _GROUPED.get(id(view))
    if hit is not None and hit[0] is view:
        return hit[1]
    found = _regrouped(view)
    if found is None:
        result = group_pods(view, everything)
        found = result, {p["key"]: i for i, p in enumerate(result[0])}
    if len(_GROUPED) >= GROUPED_KEPT:
        _GROUPED.pop(next(iter(_GROUPED)), None)
    _GROUPED[id(view)] = (view, *found)
    return found[0]


def _regrouped(view: dict[str, Any]) -> tuple[tuple[list[dict[str, Any]], dict[str, Any]], dict[str, int]] | None:
    """The grouping of `view` from the grouping of the view it was made from (see above), or
    None when that is not known or a changed pod moved to another group (then: group them all)."""
    origin = pods_changed_since(view)
    if origin is None:
        return None
    before, keys = origin
    hit = _GROUPED.get(id(before))
    if hit is None or hit[0] is not before or view.get("deployments") != before.get("deployments"):
        return None
    (ordered, groups), where = hit[1], hit[2]
    ordered, groups = list(ordered), dict(groups)
    now = pods_by_key(view)
    rs_owners = replica_set_owners(view)
    for key in keys:
        i, entry = where.get(key), now.get(key)
        if i is None or entry is None:
            return None
        old = ordered[i]
        group = owner_of(entry, rs_owners)[0]
        if group != owner_of(old, rs_owners)[0] or group not in groups:
            return None
        ordered[i] = entry
        was, status = old.get("status", ""), entry.get("status", "")
        if was != status:
            counts = dict(groups[group].counts)
            counts[was] -= 1
            counts[status] = counts.get(status, 0) + 1
            groups[group] = replace(groups[group], counts=tuple(sorted((s, n) for s, n in counts.items() if n)))
    return (ordered, groups), where


def _rows(items: Any, groups: dict[str, Any], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's rows: group headers only when some pod has an owner (all-bare runs look as
    before), else just the pods."""
    if all(g.key == "bare" for g in groups.values()):
        return [{"pod": p} for p in items]
    return rows_with_headers(list(items), groups, view)
