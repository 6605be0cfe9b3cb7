"""PyYAML's block-style output of plain manifests, written without PyYAML where that is exact.

`manifests.build_yaml` joins a scenario's stored manifests into the YAML a run plays and an
export downloads. PyYAML's safe representer builds a node per value before its emitter writes
it: ~30 s of CPU for the 9 million values of a 5,000-node x 150,000-pod scenario, paid by every
run start of a changed scenario and by every export. Stored manifests are JSON data: mappings
with string keys, lists, strings, integers, booleans and nulls, and almost all of their strings
are words PyYAML writes as they are. For those the output is a fixed function of the data, which
`dump_document` writes directly (a word its resolver would read as another type, '32' or 'true',
single-quoted as PyYAML does); any document holding something else (a float, a string PyYAML
would quote otherwise or fold, a long key, an object appearing twice, a type JSON
does not have) is written by PyYAML itself, whole. The text is byte-for-byte PyYAML's
(tests/web/test_block_yaml.py compares them on the gallery, random documents and edge cases).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

WIDTH = 100  # build_yaml's line width: PyYAML folds a plain scalar with spaces past it
MAX_SIMPLE_KEY = 128  # PyYAML writes a longer key as an explicit "? key"
# Strings PyYAML writes plain in block context, whatever their position (a conservative subset
# of its analysis): no indicator first, no ": " or " #", no leading, trailing or double space,
# nothing outside printable ASCII; ':' only inside words (a space after it would be an indicator).
_PLAIN = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9_./=+@-]*(?:[:][A-Za-z0-9_./=+@-]+)*(?: [A-Za-z0-9_./=+@()-]+)*")
_STR_TAG = "tag:yaml.org,2002:str"


class NotPlain(Exception):
    """The document holds something only PyYAML writes exactly: it writes the document."""


class PlainEmitter:
    """Writes documents of plain data as PyYAML's block style does (`dump_document`)."""

    def __init__(self) -> None:
        self._resolver = Resolver()
        self._strings: dict[str, str] = {}  # string -> as written, "" if not here (a scenario repeats most)

    def _written(self, text: str) -> str:
        """How PyYAML writes this string: as it is when its resolver reads it back as a
        string, else single-quoted ('32', 'true': they would read as other types)."""
        known = self._strings.get(text)
        if known is None:
            if text == "":
                known = "''"
            elif not _PLAIN.fullmatch(text) or text.startswith(("---", "...")):
                known = ""
            elif self._resolver.resolve(ScalarNode, text, (True, False)) == _STR_TAG:
                known = text
            else:
                known = f"'{text}'"
            self._strings[text] = known
        if not known:
            raise NotPlain
        return known

    def dump_document(self, document: dict[str, Any]) -> str:
        """The document as `yaml.dump(document, **build_yaml's options)` writes it; NotPlain
        when it holds anything this writer does not reproduce exactly."""
        if type(document) is not dict:
            raise NotPlain
        if not document:
            return "{}\n"
        out: list[str] = []
        self._mapping(document, 0, out, set())
        return "".join(out)

    def _scalar(self, value: Any, column: int) -> str:
        kind = type(value)
        if kind is str:
            written = self._written(value)
            if " " in value and column + len(written) > WIDTH:
                raise NotPlain  # PyYAML may fold it
            return written
        if kind is bool:
            return "true" if value else "false"
        if kind is int:
            return str(value)
        if value is None:
            return "null"
        raise NotPlain

    def _key(self, key: Any) -> str:
        if type(key) is not str or not key or " " in key:
            raise NotPlain
        written = self._written(key)
        if len(written) >= MAX_SIMPLE_KEY:
            raise NotPlain
        return written

    def _mapping(self, mapping: dict[str, Any], indent: int, out: list[str], seen: set[int]) -> None:
        """A non-empty block mapping whose first key goes where the output stands (after a
        "- " or at the line's indentation)."""
        if id(mapping) in seen:
            raise NotPlain  # PyYAML writes an anchor and an alias
        seen.add(id(mapping))
        pad = " " * indent
        first = True
        for key, value in mapping.items():
            written = self._key(key)
            if not first:
                out.append(pad)
            first = False
            out.append(written)
            kind = type(value)
            if kind is dict:
                if not value:
                    out.append(": {}\n")
                else:
                    out.append(":\n" + " " * (indent + 2))
                    self._mapping(value, indent + 2, out, seen)
            elif kind is list:
                if not value:
                    out.append(": []\n")
                else:
                    out.append(":\n" + pad)
                    self._sequence(value, indent, out, seen)  # PyYAML does not indent it
            else:
                out.append(": " + self._scalar(value, indent + len(written) + 2) + "\n")

    def _sequence(self, sequence: list[Any], indent: int, out: list[str], seen: set[int]) -> None:
        """A non-empty block sequence whose first "- " goes where the output stands."""
        if id(sequence) in seen:
            raise NotPlain
        seen.add(id(sequence))
        pad = " " * indent
        first = True
        for item in sequence:
            if not first:
                out.append(pad)
            first = False
            kind = type(item)
            if kind is dict:
                if not item:
                    out.append("- {}\n")
                else:
                    out.append("- ")
                    self._mapping(item, indent + 2, out, seen)
            elif kind is list:
                if not item:
                    out.append("- []\n")
                else:
                    out.append("- ")
                    self._sequence(item, indent + 2, out, seen)
            else:
                out.append("- " + self._scalar(item, indent + 2) + "\n")


def dump_all(documents: list[Any], *, dumper: type, width: int = WIDTH) -> str:
    """`yaml.dump_all(documents, Dumper=dumper, sort_keys=False, default_flow_style=False,
    allow_unicode=True, width=WIDTH)`, the same text, most documents written directly."""
    options: dict[str, Any] = {"Dumper": dumper, "sort_keys": False, "default_flow_style": False,
                               "allow_unicode": True, "width": width}
    if width != WIDTH:
        return yaml.dump_all(documents, **options)
    emitter = PlainEmitter()
    pieces: list[str] = []
    for index, document in enumerate(documents):
        try:
            text = emitter.dump_document(document)
        except NotPlain:
            # PyYAML's own, as the second document of a stream (its "---" line as dump_all writes it).
            if index == 0:
                pieces.append(yaml.dump_all([document], **options))
            else:
                both = yaml.dump_all([{}, document], **options)
                pieces.append(both[len("{}\n"):])
            continue
        if index:
            pieces.append("--- {}\n" if text == "{}\n" else "---\n")
            if text == "{}\n":
                continue
        pieces.append(text)
    return "".join(pieces)
