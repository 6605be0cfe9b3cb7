"""Node selector matching as component-helpers/scheduling/corev1/nodeaffinity does it.

Semantics that matter and are easy to get wrong:
- terms are ORed, requirements inside a term ANDed; an empty term (no expressions, no fields)
  matches nothing and is dropped;
- a term whose requirements fail to parse (bad operator, Gt/Lt with a non-integer or not exactly
  one value, In/NotIn without values, invalid label key/value) never matches, the other terms
  still do (LazyErrorNodeSelector);
- Gt/Lt compare the node label parsed as a base-10 int64; a non-integer label never matches;
- matchFields only knows `metadata.name`, only In/NotIn with exactly one value;
- a pod's `nodeSelector` map is ANDed with its required node affinity.
"""

from __future__ import annotations

import json
import re

from scheduler_core.api.types import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)

_INT64_RE = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_LABEL_NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")
_DNS1123_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")


def parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64): optional sign, ASCII digits only, int64 range."""
    if not _INT64_RE.match(s):
        return None
    v = int(s)
    if v < _INT64_MIN or v > _INT64_MAX:
        return None
    return v


def is_valid_label_key(key: str) -> bool:
    """content.IsLabelKey: optional DNS-subdomain prefix and '/', then a name of at most 63."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(_LABEL_NAME_RE.match(name))


def is_valid_label_value(value: str) -> bool:
    return len(value) <= 63 and bool(_LABEL_VALUE_RE.match(value))


# Compiled requirement kinds (ints compare faster than strings in the hot loop).
_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT = range(6)
_OPS = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST, "Gt": _GT, "Lt": _LT}


def _q(v: str) -> str:
    """Go's %q for the plain strings label values are."""
    return json.dumps(v)


_SUPPORTED_OPS = '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'


def _compile_label_requirement(r: NodeSelectorRequirement, path: str) -> tuple[tuple | None, list[str]]:
    """labels.NewRequirement: (compiled requirement, []) or (None, field errors as upstream words them)."""
    op = _OPS.get(r.operator)
    if op is None:
        return None, [f"{path}.operator: Unsupported value: {_q(r.operator)}: supported values: {_SUPPORTED_OPS}"]
    vals = tuple(r.values)
    errs: list[str] = []
    if not is_valid_label_key(r.key):
        errs.append(f"{path}.key: Invalid value: {_q(r.key)}: name part must consist of alphanumeric characters, "
                    "'-', '_' or '.', and must start and end with an alphanumeric character")
    vpath = f"{path}.values"
    if op in (_IN, _NOT_IN):
        if not vals:
            errs.append(f"{vpath}: Invalid value: []: for 'in', 'notin' operators, values set can't be empty")
    elif op in (_EXISTS, _DOES_NOT_EXIST):
        if vals:
            errs.append(f"{vpath}: Invalid value: {json.dumps(list(vals), separators=(',', ':'))}: "
                        "values set must be empty for exists and does not exist")
    else:
        if len(vals) != 1:
            errs.append(f"{vpath}: Invalid value: {json.dumps(list(vals), separators=(',', ':'))}: "
                        "for 'Gt', 'Lt' operators, exactly one value is required")
        for i, v in enumerate(vals):
            if parse_int64(v) is None:
                errs.append(f"{vpath}[{i}]: Invalid value: {_q(v)}: for 'Gt', 'Lt' operators, the value must be an integer")
    for i, v in enumerate(vals):
        if not is_valid_label_value(v):
            errs.append(f"{vpath}[{i}][{r.key}]: Invalid value: {_q(v)}: a valid label must be an empty string or "
                        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                        "alphanumeric character")
    if errs:
        return None, errs
    if op in (_GT, _LT):
        return (op, r.key, parse_int64(vals[0])), []
    if op in (_IN, _NOT_IN):
        return (op, r.key, frozenset(vals)), []
    return (op, r.key, None), []


def _label_requirement_matches(req: tuple, labels: dict[str, str]) -> bool:
    op, key, arg = req
    if op == _IN:
        v = labels.get(key)
        return v is not None and v in arg
    if op == _NOT_IN:
        v = labels.get(key)
        return v is None or v not in arg
    if op == _EXISTS:
        return key in labels
    if op == _DOES_NOT_EXIST:
        return key not in labels
    v = labels.get(key)
    if v is None:
        return False
    n = parse_int64(v)
    if n is None:
        return False
    return n > arg if op == _GT else n < arg


class CompiledTerm:
    """A parsed NodeSelectorTerm; non-empty `errors` means it failed to parse and never matches."""

    __slots__ = ("errors", "labels", "fields")

    def __init__(self, term: NodeSelectorTerm, path: str = "") -> None:
        self.errors: list[str] = []
        self.labels: tuple | None = None  # None: no matchExpressions
        self.fields: tuple | None = None  # None: no matchFields; else ((is_in, key, value), ...)
        if term.match_expressions:
            reqs = []
            for i, r in enumerate(term.match_expressions):
                c, errs = _compile_label_requirement(r, f"{path}.matchExpressions[{i}]")
                if c is None:
                    self.errors.extend(errs)
                else:
                    reqs.append(c)
            self.labels = tuple(reqs)
        if term.match_fields:
            fields = []
            for i, r in enumerate(term.match_fields):
                p = f"{path}.matchFields[{i}]"
                if r.operator in ("In", "NotIn"):
                    if len(r.values) == 1:
                        fields.append((r.operator == "In", r.key, r.values[0]))
                    else:
                        self.errors.append(f"{p}.values: Invalid value: "
                                           f"{json.dumps(list(r.values), separators=(',', ':'))}: must have one element")
                else:
                    self.errors.append(f'{p}.operator: Unsupported value: {_q(r.operator)}: supported values: "In", "NotIn"')
            self.fields = tuple(fields)

    @property
    def ok(self) -> bool:
        return not self.errors

    def matches(self, node: Node) -> bool:
        if self.errors:
            return False
        if self.labels is not None:
            labels = node.labels
            for req in self.labels:
                if not _label_requirement_matches(req, labels):
                    return False
        if self.fields is not None and node.name:
            for is_in, key, value in self.fields:
                actual = node.name if key == "metadata.name" else ""
                if (actual == value) != is_in:
                    return False
        return True


def _is_empty_term(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


def format_errors(errs: list[str]) -> str:
    """errors.Flatten(NewAggregate(errs)).Error(): one error alone, several as "[a, b]"."""
    if len(errs) == 1:
        return errs[0]
    return "[" + ", ".join(errs) + "]"


class NodeSelectorError(ValueError):
    """A node selector or preferred terms that do not parse; str() is upstream's aggregate text."""


class LazyErrorNodeSelector:
    """A NodeSelector whose unparsable terms simply never match."""

    __slots__ = ("terms",)

    def __init__(self, ns: NodeSelector, path: str = "") -> None:
        self.terms = [
            CompiledTerm(t, f"{path}.nodeSelectorTerms[{i}]" if path else f"nodeSelectorTerms[{i}]")
            for i, t in enumerate(ns.node_selector_terms)
            if not _is_empty_term(t)
        ]

    def errors(self) -> list[str]:
        return [e for t in self.terms for e in t.errors]

    def match(self, node: Node | None) -> bool:
        if node is None:
            return False
        for t in self.terms:
            if t.matches(node):
                return True
        return False


def new_node_selector(ns: NodeSelector, path: str = "") -> LazyErrorNodeSelector:
    """NewNodeSelector: like the lazy one, but a parse error anywhere raises NodeSelectorError."""
    sel = LazyErrorNodeSelector(ns, path)
    errs = sel.errors()
    if errs:
        raise NodeSelectorError(format_errors(errs))
    return sel


class PreferredSchedulingTerms:
    """NewPreferredSchedulingTerms: zero-weight and empty terms are dropped; any unparsable term
    raises NodeSelectorError (PreScore turns that into an Error status upstream)."""

    __slots__ = ("terms",)

    def __init__(self, terms: list[PreferredSchedulingTerm], path: str = "") -> None:
        parsed = []
        errs: list[str] = []
        for i, t in enumerate(terms):
            if t.weight == 0 or _is_empty_term(t.preference):
                continue
            c = CompiledTerm(t.preference, f"{path}[{i}]")
            if c.errors:
                errs.extend(c.errors)
            else:
                parsed.append((c, t.weight))
        if errs:
            raise NodeSelectorError(format_errors(errs))
        self.terms = parsed

    def score(self, node: Node) -> int:
        """Sum of the weights of the terms the node matches."""
        total = 0
        for c, w in self.terms:
            if c.matches(node):
                total += w
        return total


class RequiredNodeAffinity:
    """GetRequiredNodeAffinity: the pod's nodeSelector ANDed with its required node affinity."""

    __slots__ = ("label_selector", "node_selector")

    def __init__(self, pod: Pod) -> None:
        self.label_selector: tuple[tuple[str, str], ...] | None = (
            tuple(pod.node_selector.items()) if pod.node_selector else None
        )
        aff = pod.affinity
        na = aff.node_affinity if aff is not None else None
        self.node_selector: LazyErrorNodeSelector | None = (
            LazyErrorNodeSelector(na.required) if na is not None and na.required is not None else None
        )

    def match(self, node: Node) -> bool:
        if self.label_selector is not None:
            labels = node.labels
            for k, v in self.label_selector:
                if labels.get(k) != v:
                    return False
        if self.node_selector is not None:
            return self.node_selector.match(node)
        return True


def get_required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    return RequiredNodeAffinity(pod)
