"""Which v1.36/v1.37 scheduler changes a run's scenario touches, for the notice at the top of
the run page: the scenario holds one of their kinds or sets one of their fields, or the run sets
one of their gates (facts: scheduler_core.api.newer_versions).

The scenario is the run's YAML snapshot, which never changes, so the answer is computed once per
run and kept in the cache. It is read by the loader's own YAML decoder and its reading of newer
kinds and fields (`scheduler_core.loader.newer_kinds.kinds_and_fields`), not by scanning the
text: the loader is the only parser, and a kind or key written inside a string or a comment is
not one. Only the decode runs (its compiled fast path), not the whole load, and only on a run's
first view; and not even that when the text cannot hold an answer: none of the kind names or
field keys appears in it anywhere, and no backslash (a YAML escape could spell one) in a text of
at most ESCAPE_CHECK_BYTES. That test finds nothing itself; it spares a 70 MB snapshot of plain
pods a decode (~0.1 s of CPU per MB: bench/newer_changes.py) that could not find anything either.
A big snapshot's backslashes are no reason to decode it: the web's stored YAML writes long
double-quoted strings with escaped line breaks, and a kind spelled with escapes in a big dump is
not worth seconds of every big run's first view.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from scheduler_core.api.newer_versions import CHANGES, Change, changes_touched
from scheduler_core.loader.newer_gates import gate_names
from scheduler_core.loader.newer_kinds import kinds_and_fields
from scheduler_core.loader.yaml_input import decode_yaml

__all__ = ["newer_changes_of", "run_newer_changes"]

_FIELDS = {f for c in CHANGES for f in c.fields}  # "Kind:path" a scenario may set
# What the text must contain, as written, for the decoder to find a kind or field of CHANGES.
_NAMES = tuple(sorted({k for c in CHANGES for k in c.kinds} | {f.rsplit(".", 1)[-1] for f in _FIELDS}))


ESCAPE_CHECK_BYTES = 1 << 20  # up to here an escaped spelling is decoded (~0.1 s at most)


def _may_hold_one(yaml_text: str) -> bool:
    """False when the decoder could not find any kind or field of CHANGES in the text (or only
    in an escaped spelling inside a text over ESCAPE_CHECK_BYTES)."""
    if any(name in yaml_text for name in _NAMES):
        return True
    return len(yaml_text) <= ESCAPE_CHECK_BYTES and "\\" in yaml_text


def newer_changes_of(yaml_text: str, feature_gates: str) -> list[Change]:
    """The changes this scenario text and gate setting touch, in CHANGES order."""
    kinds: set[str] = set()
    fields: set[str] = set()
    if _may_hold_one(yaml_text):
        docs, _ = decode_yaml(yaml_text, "run")
        kinds, fields = kinds_and_fields(docs, _FIELDS)
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
