"""Reading scenarios: lists, one scenario by its share token, its objects, its YAML."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from playground.manifests import build_yaml
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, owned_by

# How many rows of one kind the editor lists; the rest are edited in the YAML view.
LIST_LIMIT = 200
# Kinds the editor has forms for; everything else is listed under "Other objects".
FORM_KINDS = ("Node", "Pod", "PriorityClass", "PodDisruptionBudget", "KubeSchedulerConfiguration")


def scenarios_owned_by(*, actor: Actor) -> QuerySet[Scenario]:
    """The actor's own scenarios, most recently changed first, with object counts."""
    owned = owned_by(actor)
    if owned is None:
        return Scenario.objects.none()
    return _with_counts(Scenario.objects.filter(owned, is_gallery=False))


def gallery_scenarios() -> QuerySet[Scenario]:
    """The built-in teaching scenarios in their intended order."""
    return _with_counts(Scenario.objects.filter(is_gallery=True)).order_by("gallery_order", "name")


def _with_counts(queryset: QuerySet[Scenario]) -> QuerySet[Scenario]:
    return queryset.annotate(
        node_count=Count("kube_objects", filter=Q(kube_objects__kind="Node")),
        pod_count=Count("kube_objects", filter=Q(kube_objects__kind="Pod")),
    )


def scenario_by_share_token(*, token: str) -> Scenario:
    """The scenario behind a share link, or 404 (tokens are unguessable; a wrong one is not found)."""
    try:
        return Scenario.objects.get(share_token=token)
    except Scenario.DoesNotExist:
        raise Http404("No such scenario") from None


def gallery_scenario_by_slug(*, slug: str) -> Scenario:
    try:
        return Scenario.objects.get(is_gallery=True, gallery_slug=slug)
    except Scenario.DoesNotExist:
        raise Http404("No such gallery scenario") from None


def scenario_manifests(*, scenario: Scenario) -> list[dict[str, Any]]:
    """Every object's manifest in document order."""
    return list(scenario.kube_objects.order_by("order", "id").values_list("manifest", flat=True))


def scenario_yaml(*, scenario: Scenario) -> str:
    """The whole scenario as multi-document YAML: what export downloads and import reads back."""
    return build_yaml(scenario_manifests(scenario=scenario))


def scenario_object(*, scenario: Scenario, object_id: int | str | None) -> ScenarioObject | None:
    if object_id in (None, ""):
        return None
    try:
        return scenario.kube_objects.get(pk=int(object_id))
    except (ValueError, TypeError, ScenarioObject.DoesNotExist):
        raise Http404("No such object in this scenario") from None


def scenario_config_object(*, scenario: Scenario) -> ScenarioObject | None:
    return scenario.kube_objects.filter(kind="KubeSchedulerConfiguration").order_by("order").first()


@dataclass
class KindListing:
    kind: str
    rows: list[ScenarioObject]
    total: int

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


def scenario_listings(*, scenario: Scenario, limit: int = LIST_LIMIT) -> dict[str, KindListing]:
    """The editor's lists: the first `limit` objects of each form kind, plus the other kinds."""
    listings: dict[str, KindListing] = {}
    totals = dict(scenario.kube_objects.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    for kind in FORM_KINDS[:-1]:
        rows = list(scenario.kube_objects.filter(kind=kind).order_by("order", "id")[:limit])
        listings[kind] = KindListing(kind=kind, rows=rows, total=totals.get(kind, 0))
    other = scenario.kube_objects.exclude(kind__in=FORM_KINDS).order_by("order", "id")
    listings["other"] = KindListing(
        kind="other", rows=list(other[:limit]), total=sum(n for k, n in totals.items() if k not in FORM_KINDS)
    )
    return listings


def scenario_counts(*, scenario: Scenario) -> dict[str, int]:
    return dict(scenario.kube_objects.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
