"""How an engine is written into a checkpoint and read back: the pickler and its compact forms.

A checkpoint is a pickle of the engine's object graph, with three departures from plain pickling:

- Frameworks and their plugins are not written (their configuration is; some hold closures):
  each becomes a reference that `Simulation.restore` points at the framework it rebuilt.
- A pod is written as its class, its *spec* (a tuple of the fields that replicas of one template
  share: labels, containers, tolerations, affinity, priority, ...) and a tuple of its own fields
  (name, uid, node, times, and a subclass's extra fields). Pods whose specs pickle to the same
  bytes share one spec tuple, which pickle's memo writes once; restored, they share the spec's
  objects. That is exact because the engine never changes a pod's spec objects in place (a
  change makes a new pod with `dataclasses.replace` and new containers), and it makes a
  150,000-pod envelope (a few thousand templates) write and rebuild tens of objects fewer per pod.
- A PodInfo without pod (anti-)affinity terms (most pods) is written as its pod and its cached
  requests; its four empty term lists are made anew on restore.

Whatever else is in the graph is pickled as usual. Raise `CHECKPOINT_VERSION`
(scheduler_core/simulation.py) whenever any of these forms changes.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from operator import itemgetter
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.interface import Plugin
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.types import PodInfo

__all__ = ["EnginePickler", "POD_OWN_FIELDS", "reset_restoring", "restoring"]

# The frameworks rebuilt for the checkpoint being restored: references to a framework or a
# plugin in the engine state are pickled as calls to `_framework_ref` / `_plugin_ref`.
_RESTORING: ContextVar[dict[str, Framework] | None] = ContextVar("restoring_frameworks", default=None)

# A pod's fields that are its own rather than its template's: written per pod. Every other field
# of the base Pod is part of the shared spec; a subclass's extra fields (volumes, claims, a
# workloadRef, pod-level resources) are written per pod too.
POD_OWN_FIELDS = ("name", "uid", "creation_index", "creation_time", "node_name", "nominated_node_name",
                  "deletion_timestamp", "start_time")


def restoring(frameworks: dict[str, Framework]) -> Any:
    """Set the frameworks that references in the pickle being read resolve to; returns the
    token for `_RESTORING.reset` (see `reset_restoring`)."""
    return _RESTORING.set(frameworks)


def reset_restoring(token: Any) -> None:
    _RESTORING.reset(token)


def _framework_ref(profile: str) -> Framework:
    frameworks = _RESTORING.get()
    if frameworks is None:
        raise pickle.UnpicklingError("a framework reference outside Simulation.restore")
    return frameworks[profile]


def _plugin_ref(profile: str, name: str) -> Plugin:
    return _framework_ref(profile).plugins_map[name]


class _PodLayout:
    """How one Pod class's attribute dict splits into its spec and its own fields, and back."""

    __slots__ = ("names", "spec_names", "spec", "own", "order")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names  # the attribute dict's keys, in the order the dataclass sets them
        base = {f for f in Pod.__dataclass_fields__ if f not in POD_OWN_FIELDS}
        spec_names = tuple(n for n in names if n in base)
        own_names = tuple(n for n in names if n not in base)
        self.spec_names = spec_names
        self.spec: Callable[[dict[str, Any]], tuple[Any, ...]] = itemgetter(*spec_names)
        self.own: Callable[[dict[str, Any]], tuple[Any, ...]] = itemgetter(*own_names)
        # Where each attribute sits in spec + own: puts the values back in the dict's order.
        position = {n: i for i, n in enumerate(spec_names + own_names)}
        self.order: Callable[[tuple[Any, ...]], tuple[Any, ...]] = itemgetter(*(position[n] for n in names))


_LAYOUTS: dict[type, _PodLayout] = {}


def _layout(cls: type, names: tuple[str, ...]) -> _PodLayout:
    layout = _LAYOUTS.get(cls)
    if layout is None or (layout.names is not names and layout.names != names):
        layout = _LAYOUTS[cls] = _PodLayout(names)
    return layout


def _pod(cls: type[Pod], names: tuple[str, ...], spec: tuple[Any, ...], own: tuple[Any, ...]) -> Pod:
    """A pod rebuilt from its spec and its own fields, its attributes in their original order
    (so that instances still share their class's attribute key table)."""
    pod = object.__new__(cls)
    pod.__dict__.update(zip(names, _layout(cls, names).order(spec + own), strict=True))
    return pod


def _plain_pod_info(pod: Pod, resource: Any) -> PodInfo:
    """A PodInfo without pod (anti-)affinity terms (what `PodInfo.update` makes for such a pod)."""
    pi = object.__new__(PodInfo)
    pi.pod = pod
    pi.required_affinity_terms = []
    pi.required_anti_affinity_terms = []
    pi.preferred_affinity_terms = []
    pi.preferred_anti_affinity_terms = []
    pi._resource = resource
    return pi


class EnginePickler(pickle.Pickler):
    """The checkpoint's pickler (see the module's docstring). `reducer_override`, unlike
    `persistent_id`, is not consulted for plain ints, strs, lists, dicts and tuples (most of an
    engine's millions of objects); the classes it handles are looked up by exact type."""

    def __init__(self, file: Any) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._kinds: dict[type, Callable[[Any], Any] | None] = {}
        self._specs: dict[bytes, tuple[Any, ...]] = {}  # a spec's pickled bytes -> the one spec tuple
        # A spec found by its values' identities, and whether those values are the spec's own.
        self._spec_ids: dict[tuple[int, ...], tuple[tuple[Any, ...], bool]] = {}
        self._kept: list[Any] = []  # keeps every spec alive while the dump runs, so ids stay unique

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        try:
            reduce = self._kinds[cls]
        except KeyError:
            reduce = self._kinds[cls] = self._reducer_for(cls)
        return NotImplemented if reduce is None else reduce(obj)

    def _reducer_for(self, cls: type) -> Callable[[Any], Any] | None:
        if issubclass(cls, Framework):
            return lambda f: (_framework_ref, (f.profile_name,))
        if issubclass(cls, Plugin):
            return self._plugin
        if issubclass(cls, Pod):
            return partial(self._pod, [None])
        if cls is PodInfo:
            return self._pod_info
        return None

    @staticmethod
    def _plugin(plugin: Plugin) -> Any:
        if isinstance(plugin.handle, Framework):
            return _plugin_ref, (plugin.handle.profile_name, plugin.name)
        return NotImplemented

    def _pod(self, last: list[_PodLayout | None], pod: Pod) -> Any:
        """`last`: this class's layout for the previous pod, which fits every pod whose
        attributes are as many (a dataclass sets them all, in its field order)."""
        d = pod.__dict__
        layout = last[0]
        if layout is None or len(layout.names) != len(d):
            layout = last[0] = _layout(type(pod), tuple(d))
        values = layout.spec(d)
        ids = tuple(map(id, values))
        found = self._spec_ids.get(ids)
        if found is None:
            spec = self._specs.setdefault(pickle.dumps(values, pickle.HIGHEST_PROTOCOL), values)
            found = self._spec_ids[ids] = (spec, spec is values)
            self._kept.append(values)  # its objects stay alive, so their ids are not reused
        spec, shared = found
        if not shared:
            # The live pod takes the shared spec's objects too (equal values): the engine keeps
            # one copy per template, and its next checkpoint finds the spec by identity.
            d.update(zip(layout.spec_names, spec, strict=True))
        return _pod, (type(pod), layout.names, spec, layout.own(d))

    @staticmethod
    def _pod_info(pi: PodInfo) -> Any:
        if (pi.required_affinity_terms or pi.required_anti_affinity_terms or pi.preferred_affinity_terms
                or pi.preferred_anti_affinity_terms):
            return NotImplemented
        return _plain_pod_info, (pi.pod, pi._resource)
