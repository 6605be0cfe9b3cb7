"""Label selectors and node selector terms, with upstream's operator/value rules."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from scheduler_core.api.validation import (
    dns1123_subdomain_error,
    label_value_error,
    qualified_name_error,
)
from scheduler_core.loader.reader import FieldReader, join_path

__all__ = ["label_selector", "node_selector_term"]


def _requirement(r: FieldReader, e: Any, p: str, *, allow_invalid_values: bool,
                 numeric_ops: bool) -> tuple[str, str, list[str]]:
    """One matchExpressions entry (label or node selector): key, operator and values validated
    as the apiserver does. Node selectors also allow Gt/Lt with a single value."""
    em = r.mapping(e, p, required=True)
    key = r.string(em.get("key"), f"{p}.key")
    op = r.string(em.get("operator"), f"{p}.operator")
    values = r.string_list(em.get("values"), f"{p}.values")
    if op in ("In", "NotIn"):
        if not values:
            raise r.err(f"{p}.values",
                        "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise r.err(f"{p}.values", "Forbidden: may not be specified when `operator` is "
                                       "'Exists' or 'DoesNotExist'")
    elif numeric_ops and op in ("Gt", "Lt"):
        # Admission only checks the count; a non-integer value simply never matches.
        if len(values) != 1:
            raise r.err(f"{p}.values", "Required value: must be specified single value when "
                                       "`operator` is 'Lt' or 'Gt'")
    else:
        raise r.err(f"{p}.operator", f'Invalid value: "{op}": not a valid selector operator')
    err = qualified_name_error(key)
    if err:
        raise r.err(f"{p}.key", f'Invalid value: "{key}": {err}')
    if not allow_invalid_values:
        for j, v in enumerate(values):
            err = label_value_error(v)
            if err:
                raise r.err(f"{p}.values[{j}]", f'Invalid value: "{v}": {err}')
    return key, op, values


def label_selector(r: FieldReader, obj: Any, path: str, *, allow_invalid_values: bool = False,
                    ) -> LabelSelector | None:
    """metav1.LabelSelector; None when absent (matches nothing), empty when `{}` (everything)."""
    if obj is None:
        return None
    m = r.mapping(obj, path)
    match_labels = r.labels(m.get("matchLabels"), join_path(path, "matchLabels"))
    exprs: list[LabelSelectorRequirement] = []
    epath = join_path(path, "matchExpressions")
    for i, e in enumerate(r.seq(m.get("matchExpressions"), epath)):
        key, op, values = _requirement(r, e, f"{epath}[{i}]", allow_invalid_values=allow_invalid_values,
                                       numeric_ops=False)
        exprs.append(LabelSelectorRequirement(key, op, tuple(values)))
    return LabelSelector(match_labels=match_labels, match_expressions=exprs)


def node_selector_term(r: FieldReader, obj: Any, path: str, *, allow_invalid_values: bool,
                        ) -> NodeSelectorTerm:
    m = r.mapping(obj, path)
    exprs: list[NodeSelectorRequirement] = []
    epath = join_path(path, "matchExpressions")
    for i, e in enumerate(r.seq(m.get("matchExpressions"), epath)):
        key, op, values = _requirement(r, e, f"{epath}[{i}]", allow_invalid_values=allow_invalid_values,
                                       numeric_ops=True)
        exprs.append(NodeSelectorRequirement(key, op, tuple(values)))
    fields: list[NodeSelectorRequirement] = []
    fpath = join_path(path, "matchFields")
    for i, e in enumerate(r.seq(m.get("matchFields"), fpath)):
        p = f"{fpath}[{i}]"
        em = r.mapping(e, p, required=True)
        key = r.string(em.get("key"), f"{p}.key")
        op = r.string(em.get("operator"), f"{p}.operator")
        values = r.string_list(em.get("values"), f"{p}.values")
        if op in ("In", "NotIn"):
            if len(values) != 1:
                raise r.err(f"{p}.values", "Required value: must be only one value when "
                                           "`operator` is 'In' or 'NotIn' for node field selector")
        else:
            raise r.err(f"{p}.operator", f'Invalid value: "{op}": not a valid selector operator')
        if key != "metadata.name":
            raise r.err(f"{p}.key", f'Invalid value: "{key}": not a valid field selector key')
        for j, v in enumerate(values):
            err = dns1123_subdomain_error(v)
            if err:
                raise r.err(f"{p}.values[{j}]", f'Invalid value: "{v}": {err}')
        fields.append(NodeSelectorRequirement(key, op, tuple(values)))
    return NodeSelectorTerm(match_expressions=exprs, match_fields=fields)

