"""How an engine is written into a checkpoint and read back: the pickler and its departures from
plain pickling.

- Frameworks and their plugins are not written (their configuration is; some hold closures):
  each becomes a reference that `Simulation.restore` points at the framework it rebuilt.
- Pods of one template share their spec's objects (labels, containers, tolerations, owner
  references, affinity, ...). The loader shares what a spec parses to; an engine's first
  checkpoint (`share_specs`) makes every pod whose spec fields are equal take one set of those
  objects, in the live engine, so pickle's memo writes them once and the restored
  engine shares them too. That is exact because the engine never changes a pod's spec objects in
  place (a change makes a new pod with `dataclasses.replace` and new objects), and it takes a
  150,000-pod envelope (a few thousand templates) from ~57 objects a pod to ~30.
- A PodInfo without pod (anti-)affinity terms (most pods) is written as its pod and its cached
  requests; its four empty term lists are made anew on restore.

The classes handled are put in the pickler's dispatch table by exact type (their subclasses
found when the pickler is made), so every other object is pickled by pickle's own C code, with
no Python call. Raise `CHECKPOINT_VERSION` (scheduler_core/simulation.py) whenever one of these
forms changes.
"""

from __future__ import annotations

import copyreg
import pickle
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar, Token
from operator import itemgetter
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.interface import Plugin
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.types import PodInfo

__all__ = ["EnginePickler", "POD_OWN_FIELDS", "reset_restoring", "restoring"]

PROTOCOL = pickle.HIGHEST_PROTOCOL
# The frameworks rebuilt for the checkpoint being restored: references to a framework or a
# plugin in the engine state are pickled as calls to `_framework_ref` / `_plugin_ref`.
_RESTORING: ContextVar[dict[str, Framework] | None] = ContextVar("restoring_frameworks", default=None)

# A pod's fields that are its own rather than its template's. Every other field of the base Pod
# is part of the spec that replicas share; a subclass's extra fields (volumes, claims, a
# workloadRef, pod-level resources) are each pod's own too.
POD_OWN_FIELDS = ("name", "uid", "creation_index", "creation_time", "node_name", "nominated_node_name",
                  "deletion_timestamp", "start_time")
_SPEC_FIELDS = tuple(f for f in Pod.__dataclass_fields__ if f not in POD_OWN_FIELDS)


def restoring(frameworks: dict[str, Framework]) -> Token[dict[str, Framework] | None]:
    """Make references in the pickle being read resolve to `frameworks`; hand the token back
    to `reset_restoring` when the read is over."""
    return _RESTORING.set(frameworks)


def reset_restoring(token: Token[dict[str, Framework] | None]) -> None:
    _RESTORING.reset(token)


def _framework_ref(profile: str) -> Framework:
    frameworks = _RESTORING.get()
    if frameworks is None:
        raise pickle.UnpicklingError("a framework reference outside Simulation.restore")
    return frameworks[profile]


def _plugin_ref(profile: str, name: str) -> Plugin:
    return _framework_ref(profile).plugins_map[name]


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


def _subclasses(cls: type) -> Iterator[type]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _subclasses(sub)


def _reduce_framework(fwk: Framework) -> Any:
    return _framework_ref, (fwk.profile_name,)


def _reduce_plugin(plugin: Plugin) -> Any:
    if isinstance(plugin.handle, Framework):
        return _plugin_ref, (plugin.handle.profile_name, plugin.name)
    return plugin.__reduce_ex__(PROTOCOL)  # a plugin outside any framework is written whole


def _reduce_pod_info(pi: PodInfo) -> Any:
    if (pi.required_affinity_terms or pi.required_anti_affinity_terms or pi.preferred_affinity_terms
            or pi.preferred_anti_affinity_terms):
        return pi.__reduce_ex__(PROTOCOL)
    return _plain_pod_info, (pi.pod, pi._resource)


def _fields_typed(*annotations: str) -> tuple[str, ...]:
    return tuple(f for f in _SPEC_FIELDS if Pod.__dataclass_fields__[f].type in annotations)


# How a spec's fields are told apart, cheaply and exactly: scalars by value and type, string
# maps by their items (order included), anything else (containers, tolerations, affinity, owner
# references: one object per template, since the loader shares them) by identity.
_SCALARS = _fields_typed("str", "int", "bool", "float")
_MAPS = _fields_typed("dict[str, str]")
_OBJECTS = tuple(f for f in _SPEC_FIELDS if f not in _SCALARS and f not in _MAPS)


class _SpecSharer:
    """Gives every pod whose spec fields are equal (scalars, string maps) or the same objects
    (everything else) one set of those objects."""

    def __init__(self) -> None:
        self._spec: Callable[[dict[str, Any]], tuple[Any, ...]] = itemgetter(*_SPEC_FIELDS)
        self._scalars: Callable[[dict[str, Any]], tuple[Any, ...]] = itemgetter(*_SCALARS)
        self._maps: Callable[[dict[str, Any]], tuple[dict[str, str], ...]] = itemgetter(*_MAPS)
        self._objects: Callable[[dict[str, Any]], tuple[Any, ...]] = itemgetter(*_OBJECTS)
        self._by_key: dict[tuple[Hashable, ...], tuple[Any, ...]] = {}
        # A spec found by its values' identities, and whether those values are the spec's own.
        self._by_ids: dict[tuple[int, ...], tuple[tuple[Any, ...], bool]] = {}
        self._kept: list[tuple[Any, ...]] = []  # every spec seen stays alive, so ids are not reused

    def reduce(self, pod: Pod) -> Any:
        d = pod.__dict__
        values = self._spec(d)
        ids = tuple(map(id, values))
        found = self._by_ids.get(ids)
        if found is None:
            scalars = self._scalars(d)
            key = (scalars, tuple(map(type, scalars)), tuple(map(id, self._objects(d))),
                   tuple([tuple(m.items()) for m in self._maps(d)]))
            spec = self._by_key.setdefault(key, values)
            found = self._by_ids[ids] = (spec, spec is values)
            self._kept.append(values)
        if not found[1]:  # equal values, other objects: the pod takes the shared ones
            d.update(zip(_SPEC_FIELDS, found[0], strict=True))
        return pod.__reduce_ex__(PROTOCOL)


class EnginePickler(pickle.Pickler):
    """The checkpoint's pickler (see the module's docstring). `share_specs`: share equal pod
    specs in the engine being written (its first checkpoint; a restored engine shares them)."""

    def __init__(self, file: Any, *, share_specs: bool = False) -> None:
        super().__init__(file, protocol=PROTOCOL)
        table: dict[type, Callable[[Any], Any]] = dict(copyreg.dispatch_table)
        table.update(dict.fromkeys(_subclasses(Framework), _reduce_framework))
        table.update(dict.fromkeys(_subclasses(Plugin), _reduce_plugin))
        table[PodInfo] = _reduce_pod_info
        if share_specs:
            table.update(dict.fromkeys(_subclasses(Pod), _SpecSharer().reduce))
        self.dispatch_table = table
