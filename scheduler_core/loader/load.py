"""The loader's entry points: a file or a text -> a validated, defaulted `Scenario`.

Order of checks, cheapest first, so a hostile input costs little: size, then YAML (depth,
aliases, duplicate keys), then kinds and strict fields, then node/pod counts (those workload
controllers will create included, counted before any is built: `bounds`), then objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scheduler_core.api.challenge import split_challenges
from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.lesson import split_lessons
from scheduler_core.api.scenario import Scenario
from scheduler_core.controllers.workloads import expand_workloads
from scheduler_core.controllers.workloads.summary import DROPPED
from scheduler_core.descheduler.loader import check_against_scenario, split_policies
from scheduler_core.loader.bounds import limit_check
from scheduler_core.loader.build import build_scenario
from scheduler_core.loader.cluster_import import normalize_dump
from scheduler_core.loader.documents import check_workload_documents, flatten_documents
from scheduler_core.loader.limits import DEFAULT_LIMITS, Limits
from scheduler_core.loader.newer_kinds import reduce_newer
from scheduler_core.loader.strict import NotSimulated, raise_duplicate_key
from scheduler_core.loader.yaml_input import decode_yaml
from scheduler_core.util.collector import collector_paused

__all__ = ["load_scenario_file", "load_scenario_text"]


def _too_large(limits: Limits, size: int | None, source: str) -> ScenarioError:
    what = f"input is too large ({size:,} bytes)" if size is not None else "input is too large"
    return ScenarioError(limits.refusal("max_bytes", what), file=source)


def load_scenario_file(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> Scenario:
    """Read and load a scenario file; errors name the file as given."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    if size > limits.max_bytes:
        raise _too_large(limits, size, str(path))
    try:
        with p.open("rb") as fh:
            # The size stat() gave plus one byte (read() allocates what it is asked for, so not
            # the limit itself); a file that grew since is read on, never past the limit.
            raw = fh.read(size + 1)
            if len(raw) > size:
                raw += fh.read(limits.max_bytes + 1 - len(raw))
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    if len(raw) > limits.max_bytes:
        raise _too_large(limits, None, str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ScenarioError(f"file is not UTF-8 text: {exc.reason} at byte {exc.start}",
                            file=str(path), line=line) from None
    return load_scenario_text(text, source=str(path), limits=limits)


def load_scenario_text(text: str, source: str = "<input>",
                       limits: Limits = DEFAULT_LIMITS, documents: list[Any] | None = None) -> Scenario:
    """Load a multi-document YAML scenario into a validated, defaulted Scenario.

    Raises ScenarioError (one, the first found in document order) when anything is wrong.
    Fields accepted but not simulated are listed in `Scenario.warnings`. `documents`, when
    given, receives the decoded YAML documents as written (None for an empty document; nothing
    expanded, Lesson documents included), so a caller that stores them does not parse the
    text a second time; the loader never changes them.
    """
    with collector_paused():  # a big cluster's documents are hundreds of thousands of objects
        return _load_scenario_text(text, source, limits, documents)


def _load_scenario_text(text: str, source: str, limits: Limits,
                        documents: list[Any] | None = None) -> Scenario:
    if len(text) > limits.max_bytes:
        raise _too_large(limits, None, source)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise _too_large(limits, size, source)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ScenarioError("the input contains a NUL character; YAML text may not", file=source,
                            line=line)
    docs, duplicates = decode_yaml(text, source)
    if duplicates:
        raise_duplicate_key(docs, min(duplicates, key=lambda d: d.line), source)
    if documents is not None:
        documents.extend(docs)
    docs, lessons = split_lessons(docs, source)  # Lesson documents: captions for the web app
    docs, challenges = split_challenges(docs, source)  # a Challenge: goals the web app checks
    docs, policy = split_policies(docs, source)  # a DeschedulerPolicy: what the descheduler runs
    # Kinds and fields of v1.36/v1.37 clusters: read as v1.35.4 reads them, or left out, noted.
    docs, newer_notes, newer_dropped = reduce_newer(docs, source, text)
    notes = NotSimulated()
    checked = check_workload_documents(docs, source, notes)
    try:
        check = limit_check(docs, source, limits)
        docs, summary = expand_workloads(*normalize_dump(docs), source, check=check)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError):
        # Only malformed input trips the controllers; the strict pass below names the field.
        flatten_documents(docs, source, NotSimulated())
        raise ScenarioError("the workload objects could not be expanded into pods; "
                            "check their spec.template", file=source) from None
    # Every object the user wrote was checked (and its warnings noted) above; this pass checks
    # only the rest: the controllers' output, whose fields (e.g. blockOwnerDeletion) the user
    # never wrote, and what the first pass could not take for an object (kinds, Lists).
    entries = flatten_documents(docs, source, NotSimulated(), checked)
    scenario = build_scenario(entries, source, limits, notes, deployments=summary.scale_targets)
    scenario.warnings = newer_notes + notes.warnings() + scenario.warnings  # the last: references (build.py)
    for kind, name, reason in newer_dropped:
        summary.add(DROPPED, kind, name, reason)
    scenario.load_summary = summary
    scenario.lessons = lessons
    scenario.challenges = challenges
    if policy is not None:
        check_against_scenario(policy, scenario.priority_classes, source)
        scenario.descheduler_policy = policy
    elif any(a.action == "runDescheduler" for a in scenario.timeline):
        raise ScenarioError("a runDescheduler action needs a DeschedulerPolicy document in the scenario "
                            "(apiVersion descheduler/v1alpha2)", file=source, kind="Timeline", field="actions")
    return scenario
