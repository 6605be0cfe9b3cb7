"""Checking a scenario's text before anything is stored: the engine's loader is the judge.

Every change that touches a scenario's objects first joins the new list of manifests into YAML
and has the engine's loader (`load_scenario_text`, with the web's limits from settings) validate
the whole scenario; a refusal becomes `ScenarioInvalid`, carrying the loader's located message,
so the services that change scenarios (services.scenarios, services.scenario_objects,
services.scenario_bulk) raise it before they write anything. Kept apart from them because the
forms, the uploads' worker and the gallery need the check and its error without the writes.

Fields the loader accepts but does not simulate (probes, volumes, env, ...) are not errors: the
checks return the loader's `LoadWarning`s so the page can list them once.
"""

from __future__ import annotations

from typing import Any

from playground.limits import web_limits
from playground.manifests import ManifestError, build_yaml, split_loaded
from playground.services.extender_access import refused_extender
from playground.services.scenario_rows import StoredObject, stored_objects
from scheduler_core.util.collector import collector_paused


class ScenarioInvalid(Exception):
    """Input that would make the scenario invalid; `message` is what the user should read.

    When the engine's loader refused it, `field`, `kind`, `name` and `document` say where.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        kind: str | None = None,
        name: str | None = None,
        document: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.kind = kind
        self.name = name
        self.document = document

    def __str__(self) -> str:
        return self.message


def validate_manifests(manifests: list[dict[str, Any]], *, source: str = "scenario") -> str:
    """Validate manifests as one scenario through the engine's loader; return their YAML."""
    text = build_yaml(manifests)
    validate_text(text, source=source)
    return text


def validate_text(
    text: str, *, source: str = "scenario", documents: list[Any] | None = None, summaries: list[Any] | None = None
) -> list[Any]:
    """Run the engine's loader over `text` with the web's limits; translate its ScenarioError
    into ScenarioInvalid. Returns the loader's "not simulated" warnings (`LoadWarning`s);
    `documents` receives the YAML documents the loader decoded (see `load_scenario_text`),
    `summaries` the load's summary (what was kept, created, dropped)."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader import load_scenario_text

    try:
        loaded = load_scenario_text(text, source=source, limits=web_limits(), documents=documents)
    except ScenarioError as error:
        raise ScenarioInvalid(
            str(error), field=error.field, kind=error.kind, name=error.name, document=error.document
        ) from None
    except RecursionError:
        raise ScenarioInvalid(f"{source}: the YAML is nested too deeply") from None
    refused = refused_extender(loaded)
    if refused is not None:
        field, message = refused
        raise ScenarioInvalid(f"{source}: KubeSchedulerConfiguration {field}: {message}", field=field,
                              kind="KubeSchedulerConfiguration")
    if summaries is not None:
        summaries.append(loaded.load_summary)
    return loaded.warnings


def manifest_warnings(manifest: dict[str, Any], *, source: str = "form") -> list[Any]:
    """The "not simulated" warnings of one object alone (the whole scenario was validated
    already): what saving this object brings in, not what its neighbours carry."""
    return manifests_warnings([manifest], source=source)


def manifests_warnings(manifests: list[dict[str, Any]], *, source: str = "form") -> list[Any]:
    """The "not simulated" warnings of these objects alone, grouped as the loader groups them."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.loader.documents import flatten_documents
    from scheduler_core.loader.newer_kinds import reduce_newer
    from scheduler_core.loader.strict import NotSimulated

    notes = NotSimulated()
    docs, newer, _ = reduce_newer(list(manifests), source)  # kinds and fields of v1.36/v1.37 clusters
    try:
        flatten_documents(docs, source, notes)
    except ScenarioError:
        return newer
    return newer + notes.warnings()


def refuse_nul(text: str, *, source: str) -> None:
    """Refuse text with a NUL character, saying where the first one is (YAML forbids it, and
    it is the mark of a binary or UTF-16 file read as UTF-8)."""
    at = text.find("\x00")
    if at < 0:
        return
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    raise ScenarioInvalid(
        f"{source}: line {line}, column {column}: the file is not text (it contains a NUL byte; "
        "is it binary, or UTF-16 instead of UTF-8?)"
    )


def read_yaml_import(
    text: str, *, source: str = "<input>", summaries: list[Any] | None = None
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Validate multi-document YAML through the engine and cut it into one manifest per object;
    also return the loader's "not simulated" warnings (`summaries`: see `validate_text`)."""
    refuse_nul(text, source=source)
    documents: list[Any] = []
    warnings = validate_text(text, source=source, documents=documents, summaries=summaries)
    try:
        return split_loaded(documents), warnings
    except ManifestError as error:
        raise ScenarioInvalid(f"{source}: {error}") from None


def read_yaml_rows(
    text: str, *, source: str = "<input>", summaries: list[Any] | None = None
) -> tuple[list[StoredObject], list[Any]]:
    """`read_yaml_import` for a caller that stores the objects: their rows, each manifest
    serialised once from the loader's documents (services.scenario_rows), instead of copies.

    The cyclic collector stays paused until the documents are let go: the loader pauses it
    while it builds them, and the first collections after that pause would walk every value
    of the upload still held here (9 million at 5,000 x 150,000: ~1 s), to find no garbage."""
    refuse_nul(text, source=source)
    with collector_paused():
        documents: list[Any] = []
        warnings = validate_text(text, source=source, documents=documents, summaries=summaries)
        try:
            objects = stored_objects(documents, text)
        except ManifestError as error:
            raise ScenarioInvalid(f"{source}: {error}") from None
        finally:
            del documents  # freed while the collector is paused
    return objects, warnings


def parse_yaml_import(text: str, *, source: str = "<input>") -> list[dict[str, Any]]:
    """Validate multi-document YAML through the engine and cut it into one manifest per object."""
    return read_yaml_import(text, source=source)[0]
