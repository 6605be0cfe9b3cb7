"""The "Reading an older article?" index: every entry lands on a page or scenario that exists,
every article of the textbook has entries, and the mapping tables name every old predicate and
priority with today's plugin and weight."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from playground import then_and_now
from playground.services import gallery
from playground.views.then_and_now import target_url
from scheduler_core.config.defaults import DEFAULT_MULTI_POINT

DEFAULT_WEIGHTS = {name: weight for name, weight in DEFAULT_MULTI_POINT if weight}

pytestmark = pytest.mark.django_db

OLD_PREDICATES = {"CheckNodeCondition", "CheckNodeUnschedulable", "GeneralPredicates", "HostName", "PodFitsHostPorts",
                  "MatchNodeSelector", "PodFitsResources", "NoDiskConflict", "PodToleratesNodeTaints",
                  "PodToleratesNodeNoExecuteTaints", "CheckNodeLabelPresence", "CheckServiceAffinity",
                  "MaxEBSVolumeCount", "MaxGCEPDVolumeCount", "MaxAzureDiskVolumeCount", "MaxCinderVolumeCount",
                  "MaxCSIVolumeCountPred", "CheckVolumeBinding", "NoVolumeZoneConflict", "CheckNodeMemoryPressure",
                  "CheckNodeDiskPressure", "CheckNodePIDPressure", "MatchInterPodAffinity", "EvenPodsSpread"}


def test_every_entry_lands_on_a_page_or_scenario_that_exists(client: Client) -> None:
    gallery.seed()
    page = client.get(reverse("playground:then_and_now")).content.decode()
    links = re.findall(r'class="then-now-link" href="([^"]+)"', page)
    assert len(links) == len(then_and_now.ENTRIES)
    for entry in then_and_now.ENTRIES:
        url = target_url(entry)
        assert f'href="{url}"' in page
        path, _, anchor = url.partition("#")
        response = client.get(path, follow=True)
        assert response.status_code == 200, (entry.mechanism, url)
        if anchor:
            assert f'id="{anchor}"' in response.content.decode()
        if entry.gallery:
            assert "start-run" in response.content.decode(), url  # the scenario page, with its lesson's run


def test_every_article_is_indexed_and_the_docs_link_the_page(client: Client) -> None:
    assert {a.key for a in then_and_now.ARTICLES} == {e.article for e in then_and_now.ENTRIES}
    assert len(then_and_now.ARTICLES) == 5
    assert reverse("playground:then_and_now") in client.get(reverse("playground:docs")).content.decode()


def test_the_tables_name_every_old_predicate_and_todays_weights() -> None:
    named = {old.split(" ")[0] for old, _ in then_and_now.PREDICATES}
    assert named == OLD_PREDICATES
    for old, _, new, weight in then_and_now.PRIORITIES:
        plugin = new.split(" ")[0]
        if plugin in DEFAULT_WEIGHTS:
            assert weight == DEFAULT_WEIGHTS[plugin], old
        else:
            assert new.startswith("—") and weight in (None, 2), old
    assert ("NodePreferAvoidPodsPriority", 10000) in [(o, w) for o, w, _, _ in then_and_now.PRIORITIES]
