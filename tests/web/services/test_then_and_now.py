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


def _version(v: str) -> tuple[int, int]:
    major, minor = v.lstrip("v~").split(".")[:2]
    return int(major), int(minor)


def test_every_entry_names_its_upstream_file_and_the_version_it_contrasts_with() -> None:
    articles = {a.key: a for a in then_and_now.ARTICLES}
    for entry in then_and_now.ENTRIES:
        assert re.fullmatch(r"(pkg|plugin|staging)/[a-z0-9_/.-]+\.go", entry.upstream), entry.mechanism
        assert re.fullmatch(r"v1\.\d+", entry.version), entry.mechanism
        low, _, high = articles[entry.article].version.partition("–")
        assert _version(low) <= _version(entry.version) <= _version(high or low), (entry.mechanism, entry.version)


# kube-scheduler's assumed-pod TTL by version: internalcache.New(30*time.Second) up to v1.22,
# durationToExpireAssumedPod = 15 minutes from v1.23, 0 in v1.35.
def _ttl_then(version: str) -> str:
    return "30 s" if _version(version) <= (1, 22) else "15 minutes"


def test_each_article_gets_its_own_assume_ttl() -> None:
    entries = [e for e in then_and_now.ENTRIES if "TTL" in e.mechanism + e.now or "expire" in e.changed]
    assert len(entries) >= 3
    for entry in entries:
        other = "15 minutes" if _ttl_then(entry.version) == "30 s" else "30 s"
        said = entry.changed.split("; it is 0 now")[0].split("v1.23 raised")[0]
        assert _ttl_then(entry.version) in said and other not in said, (entry.mechanism, entry.version, said)
        assert "0" in entry.now or "never expires" in entry.now


def test_select_host_is_described_as_upstream_v135_does_it() -> None:
    """v1.35.4's schedulePod pops the first node of a heap of scores (no random pick unless an
    extender scored); the entry and the run page must both say so."""
    (entry,) = [e for e in then_and_now.ENTRIES if "selectHost" in e.mechanism]
    assert "no longer a random pick" in entry.now and "heap" in entry.now
    assert "random" in entry.changed and entry.look.startswith("Cycle 2:")


def test_async_preemption_nominations_and_always_check_all_predicates_are_explained() -> None:
    mechanisms = " ".join(e.mechanism + " " + e.now for e in then_and_now.ENTRIES)
    assert "alwaysCheckAllPredicates" in mechanisms and "not evaluated" in mechanisms
    kept = [e for e in then_and_now.ENTRIES if "nominations" in e.mechanism.lower()]
    assert {e.article for e in kept} == {"notes", "preemption"}
    assert all("terminating" in e.now + e.changed for e in kept)
