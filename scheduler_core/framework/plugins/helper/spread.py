"""Label selectors as the spreading plugins evaluate them, and upstream's `helper.DefaultSelector`.

`Selector` is the parsed form of a `metav1.LabelSelector` (apimachinery `labels.Selector`): it keeps
the three states upstream distinguishes and that change spreading results — a missing selector
selects nothing, an empty one selects everything yet counts as `Empty()` (PodTopologySpread then
counts no pods at all), and a non-empty one ANDs its requirements.

`default_selector` deduces the group a pod belongs to when system-default topology spreading
applies: the selectors of the Services selecting the pod, plus the selector of the
ReplicationController / ReplicaSet / StatefulSet that controls it (by controller ownerReference,
as upstream looks it up by owner name — a controller whose selector merely matches the pod's
labels does not count).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scheduler_core.api.types import LabelSelector, Pod

_IN = "In"
_NOT_IN = "NotIn"
_EXISTS = "Exists"
_DOES_NOT_EXIST = "DoesNotExist"
_VALID_OPS = (_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST)


class SelectorError(ValueError):
    """A label selector upstream's LabelSelectorAsSelector would refuse to parse."""


class Selector:
    """A parsed label selector: `matches(labels)`, `empty()`, and the distinct Nothing state."""

    __slots__ = ("eq", "reqs", "nothing")

    def __init__(
        self,
        eq: tuple[tuple[str, str], ...] = (),
        reqs: tuple[tuple[str, str, frozenset[str]], ...] = (),
        nothing: bool = False,
    ) -> None:
        self.eq = eq  # (key, value): label must equal value (matchLabels / single-value In)
        self.reqs = reqs  # (key, operator, values)
        self.nothing = nothing

    @classmethod
    def nothing_selector(cls) -> Selector:
        """labels.Nothing(): matches no label set, and is not Empty()."""
        return cls(nothing=True)

    @classmethod
    def from_set(cls, label_set: Mapping[str, str]) -> Selector:
        """labels.SelectorFromSet / Set.AsSelector: equality on every pair (empty set → Everything)."""
        return cls(tuple(sorted(label_set.items())))

    @classmethod
    def from_label_selector(cls, ls: LabelSelector | None) -> Selector:
        """metav1.LabelSelectorAsSelector: None → Nothing, empty → Everything."""
        if ls is None:
            return cls.nothing_selector()
        eq = tuple(sorted(ls.match_labels.items()))
        reqs = []
        for r in ls.match_expressions:
            op = r.operator
            if op not in _VALID_OPS:
                raise SelectorError(f"{op!r} is not a valid label selector operator")
            if op in (_IN, _NOT_IN) and not r.values:
                raise SelectorError(f"values: Invalid value: {list(r.values)}: for 'in', 'notin' operators, "
                                    "values set can't be empty")
            if op in (_EXISTS, _DOES_NOT_EXIST) and r.values:
                raise SelectorError(f"values: Invalid value: {list(r.values)}: values set must be empty for "
                                    "exists and does not exist")
            if op == _IN and len(r.values) == 1:
                eq += ((r.key, r.values[0]),)
            else:
                reqs.append((r.key, op, frozenset(r.values)))
        return cls(eq, tuple(reqs))

    def empty(self) -> bool:
        """Selector.Empty(): no requirements at all (Everything). Nothing is not empty."""
        return not self.nothing and not self.eq and not self.reqs

    def add(self, other: Selector) -> Selector:
        """Selector.Add(other.Requirements()...): AND the two. Nothing has no requirements to add
        (upstream's Requirements() reports not-ok for it), so adding Nothing is a no-op."""
        if other.nothing:
            return self
        if self.nothing:
            return self
        return Selector(self.eq + other.eq, self.reqs + other.reqs)

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for k, v in self.eq:
            if labels.get(k) != v:
                return False
        for k, op, values in self.reqs:
            if op == _IN:
                if labels.get(k) not in values:
                    return False
            elif op == _NOT_IN:
                v = labels.get(k)
                if v is not None and v in values:
                    return False
            elif op == _EXISTS:
                if k not in labels:
                    return False
            elif k in labels:  # DoesNotExist
                return False
        return True

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Selector):
            return NotImplemented
        return (self.nothing, sorted(self.eq), sorted(self.reqs, key=_req_key)) == (
            other.nothing, sorted(other.eq), sorted(other.reqs, key=_req_key))

    def __hash__(self) -> int:
        return hash((self.nothing, tuple(sorted(self.eq))))

    def __repr__(self) -> str:
        if self.nothing:
            return "Selector(Nothing)"
        parts = [f"{k}={v}" for k, v in self.eq]
        parts += [f"{k} {op} {sorted(vs)}" if vs else f"{op}({k})" for k, op, vs in self.reqs]
        return f"Selector({', '.join(parts)})"


def _req_key(r: tuple[str, str, frozenset[str]]) -> tuple[str, str, list[str]]:
    return (r[0], r[1], sorted(r[2]))


# The controller kinds DefaultSelector follows, by group/version and kind (upstream rcKind etc.).
_RC = ("v1", "ReplicationController")
_RS = ("apps/v1", "ReplicaSet")
_SS = ("apps/v1", "StatefulSet")


def _controller_of(pod: Pod) -> Any:
    """metav1.GetControllerOfNoCopy: the ownerReference marked controller=true, if any."""
    for ref in getattr(pod, "owner_references", None) or ():
        if _field(ref, "controller"):
            return ref
    return None


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        camel = {"api_version": "apiVersion"}.get(name, name)
        return obj.get(camel, obj.get(name))
    return getattr(obj, name, None)


def get_pod_services(pod: Pod, workloads: Iterable[Any]) -> list[Any]:
    """helper.GetPodServices: the Services in the pod's namespace whose selector matches its labels.
    A Service without a selector selects nothing; an empty one selects every pod."""
    out = []
    for w in workloads:
        if w.kind != "Service" or w.namespace != pod.namespace or w.selector is None:
            continue
        if Selector.from_set(w.selector.match_labels).matches(pod.labels):
            out.append(w)
    return out


def default_selector(pod: Pod, workloads: Iterable[Any]) -> Selector:
    """helper.DefaultSelector: the Services' selectors merged, ANDed with the selector of the
    pod's controlling ReplicationController / ReplicaSet / StatefulSet."""
    workloads = list(workloads)
    label_set: dict[str, str] = {}
    for svc in get_pod_services(pod, workloads):
        label_set.update(svc.selector.match_labels)
    selector = Selector.from_set(label_set)

    owner = _controller_of(pod)
    if owner is None:
        return selector
    gvk = (_field(owner, "api_version") or "", _field(owner, "kind") or "")
    name = _field(owner, "name") or ""
    if gvk not in (_RC, _RS, _SS):
        return selector
    target = None
    for w in workloads:
        if w.kind == gvk[1] and w.name == name and w.namespace == pod.namespace:
            target = w
            break
    if target is None:
        return selector
    if gvk == _RC:
        if target.selector is not None:
            label_set.update(target.selector.match_labels)
        return Selector.from_set(label_set)
    try:
        other = Selector.from_label_selector(target.selector)
    except SelectorError:
        return selector
    return selector.add(other)
