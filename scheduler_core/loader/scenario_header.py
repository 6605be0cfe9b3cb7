"""A scenario file's header: its leading `# key: value` comment block, read as a YAML mapping.

Why here: the gallery's files say in their header what a run of them needs (`# feature-gates:
GenericWorkload=true,GangScheduling=true` for the gang lesson); the web's gallery reads it to
prefill the start form, and the command line reads the same header with this same parser, so a
lesson runs alike in both. Which keys count:

* `feature-gates`: the gates a run starts with. The command line applies them, under its own
  `--feature-gates` (a gate given on both takes the flag's value); the web prefills the start
  form with them.
* `title`, `order`, `chapter`, `teaches`, `explanation`, `expect`: what the gallery shows and
  its tests check; they change nothing in a run.
* a key naming another run setting (`IGNORED_SETTINGS`: version, seed ...): neither reads it,
  and the command line says so on stderr, with the flag to use instead.

Anything else is an ordinary comment. The block is decoded by the scenario loader's guarded
decoder (nesting, aliases, huge integers): a comment is input like the rest. A block that is not
a YAML mapping is no header.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scheduler_core.api.errors import ScenarioError

__all__ = ["ScenarioHeader", "read_header", "scenario_header", "file_header", "merge_gates",
           "IGNORED_SETTINGS"]

# Header keys naming a run setting no header sets, and the command-line flag that does.
IGNORED_SETTINGS = {
    "version": "--kubernetes-version", "kubernetes-version": "--kubernetes-version",
    "kubernetesVersion": "--kubernetes-version", "seed": "--seed", "max-time": "--max-time",
    "plugins": "--plugins", "graceful-termination": "--graceful-termination",
}
# A header is at most this many characters (the gallery's longest is ~2 KB): the command line
# reads no further into a file for it.
MAX_HEADER_CHARS = 64 * 1024


class ScenarioHeader:
    """The header's mapping and what a run takes from it."""

    __slots__ = ("fields",)

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields

    @property
    def feature_gates(self) -> str:
        """The `# feature-gates:` value ("" when absent)."""
        value = self.fields.get("feature-gates")
        return "" if value is None else str(value).strip()

    @property
    def ignored(self) -> list[tuple[str, str]]:
        """(key, flag) of each run-setting key the header gives that nothing reads."""
        return [(k, IGNORED_SETTINGS[k]) for k in self.fields if k in IGNORED_SETTINGS]


def _block(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(lines)


def read_header(text: str) -> dict[str, Any]:
    """The leading `# key: value` comment block of `text`, as a mapping ({} when there is none
    or it is not a YAML mapping)."""
    from scheduler_core.loader.yaml_input import decode_yaml

    block = _block(text[:MAX_HEADER_CHARS])
    if not block.strip():
        return {}
    try:
        docs, duplicates = decode_yaml(block, "header")
    except ScenarioError:
        return {}
    header = docs[0] if len(docs) == 1 and not duplicates else None
    if not isinstance(header, dict) or not all(isinstance(k, str) for k in header):
        return {}
    return header


def scenario_header(text: str) -> ScenarioHeader:
    return ScenarioHeader(read_header(text))


def file_header(path: str | Path) -> ScenarioHeader:
    """The header of a scenario file, reading only its start (a file that cannot be read, or is
    not UTF-8 there, has none: loading it reports why)."""
    try:
        with open(path, encoding="utf-8", errors="strict") as fh:
            start = fh.read(MAX_HEADER_CHARS)
    except (OSError, UnicodeDecodeError, ValueError):
        return ScenarioHeader({})
    return scenario_header(start)


def merge_gates(header: str, flag: str) -> str:
    """The `--feature-gates` value of a run: the header's settings, then the flag's, a gate given
    in both taking the flag's value (kube-scheduler's own rule for a flag given twice). Text that
    does not parse is passed on unmerged, for the gate validation to refuse with its message."""
    from scheduler_core.featuregate import FeatureGateError, format_gates, parse_gate_string

    if not header:
        return flag
    if not flag:
        return header
    try:
        merged = {**parse_gate_string(header), **parse_gate_string(flag)}
    except FeatureGateError:
        return f"{header},{flag}"
    return format_gates(merged.items())
