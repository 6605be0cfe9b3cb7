"""Seeding the teaching gallery: its built-in scenarios (playground/gallery/*.yaml, read by
selectors/gallery.py) stored as scenarios. `seed()` is idempotent: the launcher (`./dev run`)
calls it after migrating, and `manage.py seed_gallery` runs it by hand. A file whose content
changed replaces its scenario's objects; the scenario keeps its share token.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.db import transaction

from playground.models import Scenario, ScenarioObject
from playground.selectors.gallery import GALLERY_DIR, GalleryEntry, gallery_entries
from playground.services.scenario_objects import build_rows
from playground.services.scenario_validation import ScenarioInvalid, parse_yaml_import

logger = logging.getLogger(__name__)


def seed_entry(entry: GalleryEntry) -> Scenario:
    """Create or refresh one gallery scenario (validated by the engine's loader like any import)."""
    existing = Scenario.objects.filter(is_gallery=True, gallery_slug=entry.slug).first()
    if existing is not None and existing.gallery_hash == entry.digest:
        fields = {"name": entry.title, "explanation": entry.explanation, "gallery_order": entry.order,
                  "feature_gates": entry.feature_gates}
        if any(getattr(existing, k) != v for k, v in fields.items()):
            Scenario.objects.filter(pk=existing.pk).update(**fields)
        return existing
    manifests = parse_yaml_import(entry.text, source=entry.path.name)
    with transaction.atomic():
        scenario = existing or Scenario(is_gallery=True, gallery_slug=entry.slug)
        scenario.name = entry.title
        scenario.explanation = entry.explanation
        scenario.gallery_order = entry.order
        scenario.feature_gates = entry.feature_gates
        scenario.gallery_hash = entry.digest
        scenario.save()
        scenario.kube_objects.all().delete()
        ScenarioObject.objects.bulk_create(build_rows(scenario, manifests), batch_size=500)
    return scenario


def seed(directory: Path = GALLERY_DIR) -> list[Scenario]:
    """Load every gallery file; a file the engine rejects is logged and skipped, never fatal."""
    seeded = []
    for entry in gallery_entries(directory):
        try:
            seeded.append(seed_entry(entry))
        except ScenarioInvalid as error:
            logger.error("gallery scenario %s not loaded: %s", entry.path.name, error.message)
        except Exception:  # noqa: BLE001 - e.g. the engine not importable: the app must still start
            logger.exception("gallery scenario %s not loaded", entry.path.name)
    return seeded
