"""The fast path of `decode_yaml`: a compiled (Rust) YAML parser for text it reads exactly as
PyYAML's strict loader does, and `None` (take the strict loader) for anything else.

Why: PyYAML builds every document in Python (~300 us per Pod document), so a 150,000-pod dump
spent most of its load there. `yaml_rs` builds the same dicts and lists in compiled code, ~10x
faster, but it resolves a few plain scalars by other rules than PyYAML's YAML 1.1 (`yes`,
`0777`, `1:30`, `1e3`, `2001-12-14` ...), builds keys PyYAML refuses (flow collections as keys)
and accepts a few things libyaml refuses. So a text takes this path only when a scan of it
finds none of those forms anywhere (quoted or not: the scan cannot tell, and a false alarm only
costs the slow path); every error, duplicate key included (`yaml_rs` refuses them here), is
left to the strict loader, which reports it located as before. The result must then be what
PyYAML gives for the same text; `tests/engine/loader/test_yaml_fast.py` compares both on the
repository's scenarios and on a corpus of edge cases.

Guards of the strict loader kept: nesting depth (a bound from the text: indentation, leading
block indicators and flow brackets; over `MAX_NESTING_DEPTH` the strict loader measures and
locates it), aliases and merge keys (never here: `&`, `*` and `<<` send the text to the strict
loader).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import accumulate, pairwise
from typing import Any

try:  # optional: without it every text takes the strict loader
    import yaml_rs
except ImportError:  # pragma: no cover - the requirements install it
    yaml_rs = None

__all__ = ["fast_decode"]

# A line that holds a plain scalar (or key) either parser may read otherwise: a scalar made of
# the characters of numbers unless a plain decimal integer or a float both read alike, or with
# two dots (an address or a version: text to both); as a key too (1 and 1.0 are one key in
# Python, two in yaml_rs, so their duplicate would go unseen); a
# YAML 1.1 timestamp, infinity or NaN, boolean (yes/no/on/off), merge key or value key; a
# boolean or null as a key; a tag, anchor, alias or reserved indicator; an explicit or empty
# key. A plain scalar begins a line (after indentation), follows an indicator (`- `, `? `,
# `: `), a flow indicator, or the `:` of a JSON-like key ("a":1); words further into a plain
# scalar are not resolved. The first character is matched first so the scan skips fast.
_SAFE_NUMBER = (r"(?:[-+]?(?:0|[1-9][0-9]{0,17})"
                r"|[-+]?(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+][0-9]+)?"
                r"|\.[0-9]+(?:[eE][-+][0-9]+)?)(?=[\s,\]}#]|\Z)")
_NUMBERISH = (r"(?=[-+._]*[0-9])(?!" + _SAFE_NUMBER + r")(?![^\s,\]}#.]*\.[^\s,\]}#.]*\.)[-+]?(?:0[xX][0-9a-fA-F_]*|0[oObB][0-9_]*"
              r"|[._0-9][0-9_:.]*(?:[eE][-+]?[0-9_.]*)?)(?=[\s,\]}#:]|\Z)")
_END = r"(?![^\s,\]}:#])"
_RISKY_TOKEN = re.compile(
    r"""[\n\-?:\[{,"'](?:(?<=[-?:])[ ]+|(?<=[\n\[{,])[ ]*|(?<=["']):)"""
    r"""(?=[-+._0-9yYnNoOtTfF~<=!&*%@`?:])(?:"""
    + _NUMBERISH
    + r"|[0-9]{4}-[0-9]"
    + r"|[-+]?\.(?:[iI][nN][fF]|[nN][aA][nN])"
    + r"|(?:[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF|<<|=)" + _END
    + r"|(?:[tT]rue|TRUE|[fF]alse|FALSE|[nN]ull|NULL|~)[ ]*:(?=\s|\Z)"
    + r"|[!&*%@`]"
    + r"|[?:](?=\s|\Z))")
# Characters either parser may read differently: tabs, carriage returns (line breaks of one
# kind only), C0/C1 controls, NEL and the Unicode line separators (line breaks in YAML 1.1),
# byte order marks, surrogates, non-characters; surrogate escapes ("\ud83d").
_RISKY_CHAR = re.compile("[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff"
                         "\ud800-\udfff\ufffe\uffff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Directives, document end markers, content after `---`, and a flow collection used as a key.
_RISKY_LINE = re.compile(r"\n(?:%|\.\.\.(?=[ \n]|\Z)|---[ ]+[^\s#]"
                         r"|[ -]*[\[{][^\n]*[\]}][ ]*:(?=[ \n]|\Z))")
_DOC_MARKER = re.compile(r"\n---(?=[ \n]|\Z)")
_CONTENT_LINE = re.compile(r"(?m)^ *[^\s#]")

# The nesting bound. Along a chain of nested block collections the column of each one's first
# entry never decreases, and only a sequence under its key's column repeats one: at most two
# levels per column up to the deepest indentation. Beyond it only the collections opened on the
# same line by leading `- ` / `? ` indicators (and the mapping after them) can follow; then flow
# collections, bounded by the range of the running bracket count (brackets in quotes count too:
# an over-estimate only sends the text to the strict loader).
_INDENT_STEPS = (8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48)
_LEAD_STEPS = (2, 4, 8)
_LEADING = {n: re.compile(r"\n *(?:[-?] +){" + str(n) + "}") for n in _LEAD_STEPS}
_BRACKET_STEP = [0] * 256
_BRACKET_STEP[ord("[")] = _BRACKET_STEP[ord("{")] = 1
_BRACKET_STEP[ord("]")] = _BRACKET_STEP[ord("}")] = -1
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_UNBOUNDED = 1 << 30
_FLOW_START = re.compile(r"\s*[\[{]")


def _nesting_bound(text: str, lines: str) -> int:
    """An upper bound on the nesting depth of every document of `text` (see above); `lines` is
    its distinct lines, each after a newline."""
    flow = _flow_range(text)
    if _FLOW_START.match(text) and _DOC_MARKER.search(text) is None:
        return flow  # one flow collection (JSON): its indentation nests nothing
    indent = next((n - 1 for n in _INDENT_STEPS if "\n" + " " * n not in lines), _UNBOUNDED)
    lead = next((n - 1 for n in _LEAD_STEPS if not _LEADING[n].search(lines)), _UNBOUNDED)
    if indent == _UNBOUNDED or lead == _UNBOUNDED:
        return _UNBOUNDED
    return 2 * (indent + 1) + lead + 1 + flow


def _flow_range(text: str) -> int:
    """The range of the running count of flow brackets over the text."""
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    sums = list(accumulate(map(_BRACKET_STEP.__getitem__, brackets)))
    return max(max(sums), 0) - min(min(sums), 0)


def _documents(text: str) -> Iterator[str]:
    """The text of each document PyYAML finds, one at a time: the content before the first
    `---` marker unless it is only comments and blank lines, then one per marker (its line
    kept). (Tabs and carriage returns, which could also end a marker, never come here.)"""
    starts = [m.start() + 1 for m in _DOC_MARKER.finditer(text)]
    if text.startswith("---") and (len(text) == 3 or text[3] in " \n"):
        starts.insert(0, 0)
    bounds = [*starts, len(text)]
    if _CONTENT_LINE.search(text, 0, bounds[0]):
        yield text[:bounds[0]]
    for a, b in pairwise(bounds):
        yield text[a:b]


def document_texts(text: str) -> Iterator[str]:
    """The text of each document, as the decoders split it (each with its `---` line): for a
    caller that decodes only some of a big scenario's documents (`_documents`)."""
    return _documents(text)


def fast_decode(text: str, max_depth: int) -> list[Any] | None:
    """The documents of `text`, as PyYAML's strict loader would build them, or None when this
    path cannot promise that (the caller then runs the strict loader)."""
    if yaml_rs is None:
        return None
    # Every check but the bracket count looks within one line: a dump repeats most of its lines
    # (kind, namespace, image ...), so the distinct ones are scanned, each after a newline.
    lines = "\n" + "\n".join(set(text.split("\n")))
    if (_RISKY_CHAR.search(lines) or _SURROGATE_ESCAPE.search(lines)
            or _RISKY_TOKEN.search(lines) or _RISKY_LINE.search(lines)):
        return None
    if _nesting_bound(text, lines) > max_depth:
        return None
    del lines  # tens of megabytes for a dump: not kept while the documents are built
    # One call per document: each returns that document alone (a whole stream would come back
    # as one list, a single document bare), and the parser's own tree for one document at a
    # time costs far less memory than for the whole stream.
    loads = yaml_rs.loads
    policy = yaml_rs.DuplicateKeyPolicy.Error
    try:
        return [loads(doc, parse_datetime=False, duplicate_key_policy=policy)
                for doc in _documents(text)]
    except (ValueError, TypeError, OverflowError, RecursionError):
        # A refusal (YAMLDecodeError is a ValueError) is the strict loader's to report. Nothing
        # broader: an exception raised into this thread from outside (a worker's time limit)
        # must stop the load, not send it down the slower strict path.
        return None
