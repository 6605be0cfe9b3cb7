"""Reading scenarios: lists, one scenario by its share token, its objects, its YAML."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Count, Max, Q, QuerySet
from django.http import Http404

from playground.manifests import build_yaml
from playground.models import Scenario, ScenarioObject
from playground.ownership import Actor, owned_by

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
    return queryset.defer("yaml_cache").annotate(
        node_count=Count("kube_objects", filter=Q(kube_objects__kind="Node")),
        pod_count=Count("kube_objects", filter=Q(kube_objects__kind="Pod")),
    )


def scenario_by_share_token(*, token: str) -> Scenario:
    """The scenario behind a share link, or 404 (tokens are unguessable; a wrong one is not found)."""
    try:
        return Scenario.objects.defer("yaml_cache").get(share_token=token)  # the text: only when wanted
    except Scenario.DoesNotExist:
        raise Http404("No such scenario") from None


def gallery_scenario_by_slug(*, slug: str) -> Scenario:
    try:
        return Scenario.objects.defer("yaml_cache").get(is_gallery=True, gallery_slug=slug)
    except Scenario.DoesNotExist:
        raise Http404("No such gallery scenario") from None


def scenario_manifests(*, scenario: Scenario) -> list[dict[str, Any]]:
    """Every object's manifest in document order."""
    return list(scenario.kube_objects.order_by("order", "id").values_list("manifest", flat=True))


def scenario_manifests_streamed(*, scenario: Scenario, chunk_size: int = 2000) -> Iterator[dict[str, Any]]:
    """`scenario_manifests` read `chunk_size` rows at a time: a caller that writes each one out
    never holds them all (155,000 decoded manifests are ~670 MB at 5,000 nodes x 150,000 pods)."""
    return scenario.kube_objects.order_by("order", "id").values_list("manifest", flat=True).iterator(
        chunk_size=chunk_size
    )


def objects_version(*, scenario: Scenario) -> str:
    """The version of the scenario's objects: any change to them changes it (a replaced object
    gets a new id, an edited one bumps the scenario's `updated_at`)."""
    objects = scenario.kube_objects.aggregate(n=Count("pk"), last=Max("pk"))
    updated = Scenario.objects.filter(pk=scenario.pk).values_list("updated_at", flat=True).first()
    return f"{objects['n']}:{objects['last'] or 0}:{updated.isoformat() if updated else ''}"


def cached_yaml(*, scenario: Scenario, version: str | None = None) -> str | None:
    """The kept YAML when it was built from the objects as they are now, else None."""
    version = version or objects_version(scenario=scenario)
    return Scenario.objects.filter(pk=scenario.pk, yaml_cache_version=version).values_list(
        "yaml_cache", flat=True
    ).first()


def scenario_yaml(*, scenario: Scenario) -> str:
    """The whole scenario as multi-document YAML: what export downloads and import reads back
    (the kept copy when it is current: see services.runs.prepare.scenario_yaml_prepare)."""
    cached = cached_yaml(scenario=scenario)
    return cached if cached is not None else build_yaml(scenario_manifests(scenario=scenario))


def scenario_object(*, scenario: Scenario, object_id: int | str | None) -> ScenarioObject | None:
    if object_id in (None, ""):
        return None
    try:
        return scenario.kube_objects.get(pk=int(object_id))
    except (ValueError, TypeError, ScenarioObject.DoesNotExist):
        raise Http404("No such object in this scenario") from None


def scenario_config_object(*, scenario: Scenario) -> ScenarioObject | None:
    return scenario.kube_objects.filter(kind="KubeSchedulerConfiguration").order_by("order").first()


# The editor's lists by section: a section shows the objects of one form kind, "other" the rest.
SECTION_KINDS = {kind.lower(): kind for kind in FORM_KINDS[:-1]}


def section_objects(*, scenario: Scenario, section: str, query: str = "") -> QuerySet[ScenarioObject]:
    """The objects an editor section lists, in document order, narrowed by a name search.

    `query` matches the name or namespace (case-insensitive), `namespace/name` both parts, and
    for "other" also the kind. Only the identity columns are read until a row is shown."""
    objects = scenario.kube_objects.all()
    if section in SECTION_KINDS:
        objects = objects.filter(kind=SECTION_KINDS[section])
    elif section == "other":
        objects = objects.exclude(kind__in=FORM_KINDS)
    else:
        raise Http404("No such list")
    query = query.strip()
    if query:
        namespace, slash, name = query.rpartition("/")
        if slash:
            objects = objects.filter(namespace__icontains=namespace, name__icontains=name)
        else:
            match = Q(name__icontains=query) | Q(namespace__icontains=query)
            if section == "other":
                match |= Q(kind__icontains=query)
            objects = objects.filter(match)
    return objects.order_by("order", "id")


def scenario_counts(*, scenario: Scenario) -> dict[str, int]:
    """Objects per kind (one grouped query: the page shows counts, never a row per object)."""
    return dict(scenario.kube_objects.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))


def scenario_object_count(*, scenario: Scenario) -> int:
    return scenario.kube_objects.count()


def scenario_documents(*, scenario: Scenario, first: int, count: int) -> list[ScenarioObject]:
    """Objects `first` .. `first + count - 1` (0-based positions in document order)."""
    return list(scenario.kube_objects.order_by("order", "id")[first : first + count])


def iter_scenario_yaml(*, scenario: Scenario, batch: int = 500) -> Iterator[str]:
    """The scenario's YAML in pieces of `batch` documents, joined exactly as `scenario_yaml`
    joins them: a big export streams without holding every manifest or the whole text."""
    cached = cached_yaml(scenario=scenario)
    if cached is not None:
        for start in range(0, len(cached), 1 << 16):
            yield cached[start : start + (1 << 16)]
        return
    rows = scenario.kube_objects.order_by("order", "id").values_list("manifest", flat=True)
    chunk: list[dict[str, Any]] = []
    first = True
    for manifest in rows.iterator(chunk_size=batch):
        chunk.append(manifest)
        if len(chunk) == batch:
            yield ("" if first else "---\n") + build_yaml(chunk)
            chunk, first = [], False
    if chunk:
        yield ("" if first else "---\n") + build_yaml(chunk)


def scenario_object_position(*, scenario: Scenario, object_id: Any) -> int | None:
    """The 0-based document position of one object, or None when it is not in the scenario."""
    try:
        row = scenario.kube_objects.only("order").get(pk=int(object_id))
    except (ValueError, TypeError, ScenarioObject.DoesNotExist):
        return None
    return scenario.kube_objects.filter(Q(order__lt=row.order) | Q(order=row.order, id__lt=row.pk)).count()
