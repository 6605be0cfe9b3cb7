"""Which v1.36/v1.37 scheduler changes a run's scenario touches, for the notice at the top of
the run page: the scenario holds one of their kinds or sets one of their fields, or the run sets
one of their gates (facts: scheduler_core.api.newer_versions).

The scenario is the run's YAML snapshot, which never changes, so the answer is computed once per
run and kept in the cache. It is read from the text, line by line (a key or `kind:` at the start
of a line, as the app writes YAML), not by loading the scenario: an imported cluster's snapshot is
hundreds of megabytes, and the page must not parse it to render.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.cache import cache

from scheduler_core.api.newer_versions import CHANGES, Change, changes_touched
from scheduler_core.loader.newer_gates import gate_names

__all__ = ["newer_changes_of", "run_newer_changes"]

_KINDS = sorted({k for c in CHANGES for k in c.kinds})
_FIELDS = {f.rsplit(".", 1)[-1]: f for c in CHANGES for f in c.fields}  # last key -> "Kind:path"
_KIND_RE = re.compile(r"^[ \t]*(?:- )?kind:[ \t]*['\"]?(" + "|".join(map(re.escape, _KINDS)) + r")['\"]?[ \t]*$",
                      re.MULTILINE)
_FIELD_RE = re.compile(r"^[ \t]*(?:- )?['\"]?(" + "|".join(map(re.escape, _FIELDS)) + r")['\"]?:", re.MULTILINE)


def newer_changes_of(yaml_text: str, feature_gates: str) -> list[Change]:
    """The changes this scenario text and gate setting touch, in CHANGES order."""
    kinds = set(_KIND_RE.findall(yaml_text))
    fields = {_FIELDS[key] for key in _FIELD_RE.findall(yaml_text)}
    return changes_touched(kinds, fields, set(gate_names(feature_gates)))


def run_newer_changes(*, run: Any) -> list[Change]:
    """The changes run `run` touches (cached per run: its snapshot and gates never change)."""
    key = f"run-newer-changes:{run.pk}:{run.share_token}"
    titles = cache.get(key)
    if titles is None:
        titles = [c.title for c in newer_changes_of(run.scenario_yaml or "", run.feature_gates or "")]
        cache.set(key, titles, timeout=None)
    by_title = {c.title: c for c in CHANGES}
    return [by_title[t] for t in titles if t in by_title]
