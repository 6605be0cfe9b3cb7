"""Pod affinity, anti-affinity, node affinity and topology spread constraints, including the
pod strategy's merge of matchLabelKeys/mismatchLabelKeys into their selectors."""

from __future__ import annotations

from typing import Any

from scheduler_core.api.types import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PreferredSchedulingTerm,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from scheduler_core.api.validation import dns1123_label_error, qualified_name_error
from scheduler_core.loader.reader import FieldReader
from scheduler_core.loader.selectors import label_selector, node_selector_term

__all__ = ["parse_affinity", "parse_spread_constraints"]


def check_label_keys(r: FieldReader, path: str, match_keys: list[str], mismatch_keys: list[str],
                      selector: LabelSelector | None) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys, run on the already-merged selector."""
    for field, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if keys and selector is None:
            raise r.err(f"{path}.{field}",
                        "Forbidden: must not be specified when labelSelector is not set")
        for i, k in enumerate(keys):
            err = qualified_name_error(k)
            if err:
                raise r.err(f"{path}.{field}[{i}]", f'Invalid value: "{k}": {err}')
    if selector is not None and match_keys:
        index = {k: i for i, k in enumerate(match_keys)}
        seen = set(selector.match_labels)
        for expr in selector.match_expressions:
            if expr.key in index and expr.key in seen:
                raise r.err(f"{path}[{index[expr.key]}]", f'Invalid value: "{expr.key}": exists '
                                                          "in both matchLabelKeys and "
                                                          "labelSelector")
            seen.add(expr.key)
    mismatch = set(mismatch_keys)
    for i, k in enumerate(match_keys):
        if k in mismatch:
            raise r.err(f"{path}.matchLabelKeys[{i}]", f'Invalid value: "{k}": exists in both '
                                                       "matchLabelKeys and mismatchLabelKeys")


def merge_label_keys(selector: LabelSelector | None, keys: list[str], op: str,
                      labels: dict[str, str]) -> None:
    """The pod strategy's applyLabelKeysToLabelSelector (PrepareForCreate)."""
    if selector is None:
        return
    for k in keys:
        if k in labels:
            selector.match_expressions.append(LabelSelectorRequirement(k, op, (labels[k],)))


def _pod_affinity_term(r: FieldReader, obj: Any, path: str, labels: dict[str, str],
                       ) -> PodAffinityTerm:
    m = r.mapping(obj, path, required=True)
    sel = label_selector(r, m.get("labelSelector"), f"{path}.labelSelector")
    ns_sel = label_selector(r, m.get("namespaceSelector"), f"{path}.namespaceSelector")
    namespaces = r.string_list(m.get("namespaces"), f"{path}.namespaces")
    for ns in namespaces:
        err = dns1123_label_error(ns)
        if err:
            raise r.err(f"{path}.namespace", f'Invalid value: "{ns}": {err}')
    match_keys = r.string_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    mismatch_keys = r.string_list(m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys")
    if match_keys or mismatch_keys:
        merge_label_keys(sel, match_keys, "In", labels)
        merge_label_keys(sel, mismatch_keys, "NotIn", labels)
        check_label_keys(r, path, match_keys, mismatch_keys, sel)
    topology_key = r.string(m.get("topologyKey"), f"{path}.topologyKey")
    if not topology_key:
        raise r.err(f"{path}.topologyKey", "Required value: can not be empty")
    err = qualified_name_error(topology_key)
    if err:
        raise r.err(f"{path}.topologyKey", f'Invalid value: "{topology_key}": {err}')
    return PodAffinityTerm(label_selector=sel, namespaces=namespaces, topology_key=topology_key,
                           namespace_selector=ns_sel, match_label_keys=match_keys,
                           mismatch_label_keys=mismatch_keys)


def _pod_affinity_terms(r: FieldReader, m: dict[str, Any], path: str, labels: dict[str, str],
                        ) -> tuple[list[PodAffinityTerm], list[WeightedPodAffinityTerm]]:
    req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    required = [
        _pod_affinity_term(r, t, f"{req_path}[{i}]", labels)
        for i, t in enumerate(r.seq(m.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                    req_path))
    ]
    pref_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred: list[WeightedPodAffinityTerm] = []
    for i, t in enumerate(r.seq(m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                pref_path)):
        p = f"{pref_path}[{i}]"
        tm = r.mapping(t, p, required=True)
        weight = r.integer(tm.get("weight", 0), f"{p}.weight")
        if not 1 <= weight <= 100:
            raise r.err(f"{p}.weight", f"Invalid value: {weight}: must be in the range 1-100")
        term = _pod_affinity_term(r, tm.get("podAffinityTerm"), f"{p}.podAffinityTerm", labels)
        preferred.append(WeightedPodAffinityTerm(weight=weight, pod_affinity_term=term))
    return required, preferred


def parse_affinity(r: FieldReader, obj: Any, path: str, labels: dict[str, str]) -> Affinity | None:
    if obj is None:
        return None
    m = r.mapping(obj, path)
    out = Affinity()
    if m.get("nodeAffinity") is not None:
        p = f"{path}.nodeAffinity"
        na = r.mapping(m["nodeAffinity"], p)
        node_aff = NodeAffinity()
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if req is not None:
            rp = f"{p}.requiredDuringSchedulingIgnoredDuringExecution"
            rm = r.mapping(req, rp)
            terms_path = f"{rp}.nodeSelectorTerms"
            raw_terms = r.seq(rm.get("nodeSelectorTerms"), terms_path)
            if not raw_terms:
                raise r.err(terms_path, "Required value: must have at least one node selector "
                                        "term")
            node_aff.required = NodeSelector([
                node_selector_term(r, t, f"{terms_path}[{i}]", allow_invalid_values=False)
                for i, t in enumerate(raw_terms)
            ])
        pp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(r.seq(na.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                    pp)):
            tp = f"{pp}[{i}]"
            tm = r.mapping(t, tp, required=True)
            weight = r.integer(tm.get("weight", 0), f"{tp}.weight")
            if not 1 <= weight <= 100:
                raise r.err(f"{tp}.weight", f"Invalid value: {weight}: must be in the range 1-100")
            term = node_selector_term(r, tm.get("preference"), f"{tp}.preference",
                                       allow_invalid_values=True)
            node_aff.preferred.append(PreferredSchedulingTerm(weight=weight, preference=term))
        out.node_affinity = node_aff
    if m.get("podAffinity") is not None:
        p = f"{path}.podAffinity"
        req, pref = _pod_affinity_terms(r, r.mapping(m["podAffinity"], p), p, labels)
        out.pod_affinity = PodAffinity(required=req, preferred=pref)
    if m.get("podAntiAffinity") is not None:
        p = f"{path}.podAntiAffinity"
        req, pref = _pod_affinity_terms(r, r.mapping(m["podAntiAffinity"], p), p, labels)
        out.pod_anti_affinity = PodAntiAffinity(required=req, preferred=pref)
    return out


def parse_spread_constraints(r: FieldReader, obj: Any, path: str, labels: dict[str, str],
                        ) -> list[TopologySpreadConstraint]:
    out: list[TopologySpreadConstraint] = []
    raw = r.seq(obj, path)
    for i, c in enumerate(raw):
        p = f"{path}[{i}]"
        m = r.mapping(c, p, required=True)
        max_skew = r.integer(m.get("maxSkew", 0), f"{p}.maxSkew")
        if max_skew <= 0:
            raise r.err(f"{p}.maxSkew", f"Invalid value: {max_skew}: must be greater than zero")
        topology_key = r.string(m.get("topologyKey"), f"{p}.topologyKey")
        if not topology_key:
            raise r.err(f"{p}.topologyKey", "Required value: can not be empty")
        when = r.string(m.get("whenUnsatisfiable"), f"{p}.whenUnsatisfiable")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise r.err(f"{p}.whenUnsatisfiable", f'Unsupported value: "{when}": supported '
                                                  'values: "DoNotSchedule", "ScheduleAnyway"')
        for other in raw[i + 1:]:
            if (isinstance(other, dict) and other.get("topologyKey") == topology_key
                    and other.get("whenUnsatisfiable") == when):
                raise r.err(f"{p}.{{topologyKey, whenUnsatisfiable}}",
                            f'Duplicate value: "{{{topology_key}, {when}}}"')
        min_domains = r.opt_integer(m.get("minDomains"), f"{p}.minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                raise r.err(f"{p}.minDomains",
                            f"Invalid value: {min_domains}: must be greater than zero")
            if when != "DoNotSchedule":
                raise r.err(f"{p}.minDomains", f"Invalid value: {min_domains}: can only use "
                                               "minDomains if whenUnsatisfiable=DoNotSchedule, "
                                               f"not {when}")
        policies: list[str | None] = []
        for fld in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = m.get(fld)
            if v is not None:
                v = r.string(v, f"{p}.{fld}")
                if v not in ("Honor", "Ignore"):
                    raise r.err(f"{p}.{fld}", f'Unsupported value: "{v}": supported values: '
                                              '"Honor", "Ignore"')
            policies.append(v)
        sel = label_selector(r, m.get("labelSelector"), f"{p}.labelSelector")
        match_keys = r.string_list(m.get("matchLabelKeys"), f"{p}.matchLabelKeys")
        if match_keys:
            # MatchLabelKeysInPodTopologySpreadSelectorMerge (beta, on in v1.35).
            merge_label_keys(sel, match_keys, "In", labels)
            check_label_keys(r, p, match_keys, [], sel)
        out.append(TopologySpreadConstraint(
            max_skew=max_skew, topology_key=topology_key, when_unsatisfiable=when,
            label_selector=sel, min_domains=min_domains, node_affinity_policy=policies[0],
            node_taints_policy=policies[1], match_label_keys=match_keys,
        ))
    return out
