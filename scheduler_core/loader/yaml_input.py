"""YAML text -> Python documents, guarded against inputs that cost more than their size.

Strict like `kubectl apply --validate=strict`: a key given twice in one mapping is an error (the
apiserver's decoder refuses it; PyYAML would silently keep the last value). Guards, each checked
before work proportional to the danger:

* nesting deeper than `MAX_NESTING_DEPTH` is refused with its line. libyaml's composer recurses
  in C, so a document nested ~100,000 levels would crash the process before any Python code ran;
  a cheap upper bound on the depth is computed from the text first, and only when it is high is
  the exact depth found with libyaml's (iterative) event parser;
* alias bombs and recursive aliases (`_check_expansion`), and merge keys (`<<`) whose expansion
  grows beyond the same budget.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader.numbers import construct_integer, locate_oversized
from scheduler_core.loader.yaml_fast import fast_decode

__all__ = ["decode_yaml", "document_of_line", "MAX_EXPANDED_NODES", "MAX_NESTING_DEPTH",
           "DuplicateKey"]

# An alias-expanded document may be larger than its text, but not by orders of magnitude.
MAX_EXPANDED_NODES = 2_000_000
# Merge keys (`<<`) copy pairs; real manifests merge a handful of small mappings.
MAX_MERGED_PAIRS = 100_000
# Kubernetes objects nest ~20 levels (a List of Pods with affinity terms); managedFields a few
# more. Anything near 100 is not a manifest.
MAX_NESTING_DEPTH = 100
# Below this bound the C composer is known to be safe; above it the exact depth is measured.
_COMPOSE_SAFE_DEPTH = 2000

_MERGE_TAG = "tag:yaml.org,2002:merge"
_BRACKET_STEP = [0] * 256
_BRACKET_STEP[ord("[")] = _BRACKET_STEP[ord("{")] = 1
_BRACKET_STEP[ord("]")] = _BRACKET_STEP[ord("}")] = -1
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# A line whose block structure could nest deeper than the safe bound: deep indentation, or
# very many block indicators (`- `, `? `, `: `) on one line.
# Block depth <= 2 x indentation + indicators; with both under 400 and flow under 500 the
# total stays under the safe bound.
_DEEP_BLOCK_RE = re.compile(r"(?m)^ {400,}|^(?:[^\n:?-]*[:?-]){400}")
_DEEP_FLOW = 500


class _InputError(Exception):
    """Raised from inside the YAML constructor: a located guard violation."""

    def __init__(self, reason: str, mark: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.mark = mark


class DuplicateKey:
    """A key given twice in one mapping: the mapping (as constructed), the key and its line."""

    __slots__ = ("mapping", "key", "line")

    def __init__(self, mapping: dict[Any, Any], key: Any, line: int) -> None:
        self.mapping = mapping
        self.key = key
        self.line = line


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader plus nesting depth, duplicate-key and merge-size checks.

    Depth is tracked on the nodes themselves: a collection's children are marked with its
    depth + 1 before they are constructed (PyYAML constructs breadth-first through its state
    generators, so a parent always runs first).
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[DuplicateKey] = []
        self.merged = 0
        self.oversized = False  # an integer too large to convert was met (numbers.py)

    def flatten_mapping(self, node: MappingNode) -> None:
        """SafeConstructor.flatten_mapping with a budget on how many pairs merges copy.

        A node is flattened once (an anchored mapping merged in many places is not re-walked).
        """
        if hasattr(node, "explicit"):
            return
        merge: list[Any] = []
        explicit: list[Any] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                if key_node.tag == "tag:yaml.org,2002:value":
                    key_node.tag = "tag:yaml.org,2002:str"
                explicit.append((key_node, value_node))
                continue
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            if not isinstance(value_node, (MappingNode, SequenceNode)):
                raise _InputError("expected a mapping or list of mappings for merging",
                                  value_node.start_mark)
            part: list[Any] = []
            for sub in reversed(sources) if isinstance(value_node, SequenceNode) else sources:
                if not isinstance(sub, MappingNode):
                    raise _InputError("expected a mapping for merging", sub.start_mark)
                self.flatten_mapping(sub)
                self.merged += len(sub.value)
                if self.merged > MAX_MERGED_PAIRS:
                    raise _InputError("YAML merge-key expansion is too large", key_node.start_mark)
                part.extend(sub.value)
            merge.extend(part)
        node.value = merge + explicit if merge else explicit
        node.explicit = explicit

    def _mark_children(self, node: Any, children: Any) -> None:
        depth = getattr(node, "depth", 1) + 1
        for child in children:
            if child.__class__ is not ScalarNode:
                if depth > MAX_NESTING_DEPTH:
                    raise _InputError(f"YAML nesting is deeper than {MAX_NESTING_DEPTH} levels",
                                      child.start_mark)
                child.depth = depth

    def construct_strict_map(self, node: MappingNode) -> Any:
        data: dict[Any, Any] = {}
        yield data
        self._mark_children(node, (v for _, v in node.value))
        value = self.construct_mapping(node)
        data.update(value)
        explicit = getattr(node, "explicit", node.value)
        if len(value) < len(explicit) or len(value) < len(node.value):
            seen: set[Any] = set()
            for key_node, _ in explicit:
                key = self.construct_object(key_node)
                if key in seen:
                    self.duplicates.append(DuplicateKey(data, key, key_node.start_mark.line + 1))
                    break
                seen.add(key)

    def construct_strict_seq(self, node: SequenceNode) -> Any:
        data: list[Any] = []
        yield data
        self._mark_children(node, node.value)
        data.extend(self.construct_sequence(node))


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _StrictLoader.construct_strict_map)
_StrictLoader.add_constructor("tag:yaml.org,2002:seq", _StrictLoader.construct_strict_seq)
_StrictLoader.add_constructor("tag:yaml.org,2002:int", construct_integer)


class _Limits(Exception):
    document: int | None = None
    recursive = False


def _check_expansion(docs: list[Any], limit: int) -> None:
    """Reject alias bombs and recursive aliases before anything walks the data.

    PyYAML shares one object for every use of an anchor, so loading is cheap; walking the result
    is what explodes. The expanded size is computed over the shared structure (memoized by id),
    which is linear in the number of distinct objects.
    """
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(o: Any) -> int:
        if not isinstance(o, (dict, list)):
            return 1
        k = id(o)
        s = sizes.get(k)
        if s is not None:
            return s
        if k in active:
            exc = _Limits("recursive YAML alias")
            exc.recursive = True
            raise exc
        active.add(k)
        total = 1
        items = o.items() if isinstance(o, dict) else enumerate(o)
        for key, v in items:
            total += size(v)
            if isinstance(o, dict) and isinstance(key, (dict, list)):
                total += size(key)
            if total > limit:
                raise _Limits("YAML alias expansion is too large")
        active.discard(k)
        sizes[k] = total
        return total

    grand = 0
    for i, d in enumerate(docs, start=1):
        try:
            grand += size(d)
        except _Limits as exc:
            exc.document = i
            raise
        if grand > limit:
            exc = _Limits("YAML alias expansion is too large")
            exc.document = i
            raise exc


_ALIAS_RE = re.compile(r"(^|[\s\[{,:\-?])[*&][^\s,\[\]{}]")


def document_of_line(text: str, line0: int) -> int:
    """The 1-based document index of 0-based line `line0` (documents split at `---`)."""
    doc = 1
    for i, ln in enumerate(text.split("\n")):
        if i >= line0:
            break
        if ln.startswith("---") and i > 0:
            doc += 1
    return doc


def _may_nest_deeply(text: str) -> bool:
    """A cheap upper bound on the nesting depth exceeds what the C composer handles safely.

    Flow nesting is bounded by the range of the running bracket count (quotes ignored, so it
    over-counts); block nesting by indentation and the number of indicators on one line.
    """
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if brackets:
        sums = list(accumulate(map(_BRACKET_STEP.__getitem__, brackets)))
        if max(max(sums), 0) - min(min(sums), 0) > _DEEP_FLOW:
            return True
    return _DEEP_BLOCK_RE.search(text) is not None


def _check_depth_exactly(text: str, source: str) -> None:
    """Find the first node nested deeper than MAX_NESTING_DEPTH with the event parser, which is
    iterative (no C recursion), and refuse it with its line."""
    depth = 0
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    try:
        for ev in yaml.parse(text, Loader=_Base):
            if isinstance(ev, starts):
                depth += 1
                if depth > MAX_NESTING_DEPTH:
                    _raise_located(text, source, _InputError(
                        f"YAML nesting is deeper than {MAX_NESTING_DEPTH} levels",
                        ev.start_mark))
            elif isinstance(ev, ends):
                depth -= 1
            elif isinstance(ev, yaml.DocumentStartEvent):
                depth = 0
    except yaml.MarkedYAMLError as exc:
        _raise_syntax(text, source, exc)


def _raise_located(text: str, source: str, exc: _InputError) -> None:
    mark = exc.mark
    line = mark.line + 1 if mark is not None else None
    doc = document_of_line(text, mark.line) if mark is not None else None
    raise ScenarioError(exc.reason, file=source, line=line, document=doc) from None


def _raise_syntax(text: str, source: str, exc: yaml.MarkedYAMLError) -> None:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    col = mark.column + 1 if mark is not None else None
    what = exc.problem or exc.context or "invalid YAML"
    doc = document_of_line(text, mark.line) if mark is not None else None
    where = f", column {col}" if col else ""
    raise ScenarioError(f"YAML syntax error{where}: {what}", file=source, line=line,
                        document=doc) from None


def decode_yaml(text: str, source: str) -> tuple[list[Any], list[DuplicateKey]]:
    """Parse every document of `text`; also return the duplicate keys found (the caller, which
    knows which object and field a mapping belongs to, reports them).

    Texts the compiled parser reads exactly as this loader does take it (`yaml_fast`: no
    duplicate key there, it refuses them); the rest, and every error, come here."""
    docs = fast_decode(text, MAX_NESTING_DEPTH)
    if docs is not None:
        return docs, []
    if _may_nest_deeply(text):
        _check_depth_exactly(text, source)
    loader = _StrictLoader(text)
    try:
        docs = []
        while loader.check_data():
            docs.append(loader.get_data())
    except _InputError as exc:
        _raise_located(text, source, exc)
    except yaml.MarkedYAMLError as exc:
        _raise_syntax(text, source, exc)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise ScenarioError(f"YAML error: character U+{code:04X} is not allowed in YAML text",
                            file=source, line=line,
                            document=document_of_line(text, line - 1)) from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"YAML error: {exc}", file=source) from None
    except RecursionError:
        raise ScenarioError("YAML nesting is too deep", file=source) from None
    finally:
        loader.dispose()
    if loader.oversized:
        raise locate_oversized(docs, source)
    if _ALIAS_RE.search(text):
        try:
            limit = max(MAX_EXPANDED_NODES, len(text))
            _check_expansion(docs, limit)
        except _Limits as exc:
            reason = (f"{exc}: an anchor (&) may not contain an alias (*) to itself"
                      if exc.recursive else
                      f"{exc}: anchors (&) and aliases (*) may not expand beyond {limit:,} values")
            raise ScenarioError(reason, file=source, document=exc.document) from None
        except RecursionError:
            raise ScenarioError("YAML nesting is too deep", file=source) from None
    return docs, loader.duplicates
