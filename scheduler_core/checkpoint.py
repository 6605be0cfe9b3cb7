"""How an engine is written into a checkpoint and read back: the pickler and its departures from
plain pickling.

- Frameworks and their plugins are not written (their configuration is; some hold closures):
  each becomes a reference that `Simulation.restore` points at the framework it rebuilt.
- Nothing is done for pods: the loader gives the replicas of a template one set of spec
  objects, label and annotation maps, empty condition maps and one namespace string
  (scheduler_core/loader/pods.py, metadata.py), so pickle's memo writes each once and the
  restored engine shares them too. That is exact because the engine never changes those in
  place (a change makes a new pod with `dataclasses.replace` and new objects).
- A PodInfo without pod (anti-)affinity terms (most pods) is written as its pod and its cached
  requests; its four term fields are the shared empty tuple again on restore.

The classes handled are put in the pickler's dispatch table by exact type (their subclasses
found when the pickler is made), so every other object is pickled by pickle's own C code, with
no Python call. Raise `CHECKPOINT_VERSION` (scheduler_core/simulation.py) whenever one of these
forms changes.
"""

from __future__ import annotations

import copyreg
import pickle
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from typing import Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.interface import Plugin
from scheduler_core.framework.runtime.framework import Framework
from scheduler_core.framework.types import NO_TERMS, PodInfo

__all__ = ["EnginePickler", "reset_restoring", "restoring"]

PROTOCOL = pickle.HIGHEST_PROTOCOL
# The frameworks rebuilt for the checkpoint being restored: references to a framework or a
# plugin in the engine state are pickled as calls to `_framework_ref` / `_plugin_ref`.
_RESTORING: ContextVar[dict[str, Framework] | None] = ContextVar("restoring_frameworks", default=None)


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
    pi.required_affinity_terms = NO_TERMS
    pi.required_anti_affinity_terms = NO_TERMS
    pi.preferred_affinity_terms = NO_TERMS
    pi.preferred_anti_affinity_terms = NO_TERMS
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


class EnginePickler(pickle.Pickler):
    """The checkpoint's pickler (see the module's docstring)."""

    def __init__(self, file: Any) -> None:
        super().__init__(file, protocol=PROTOCOL)
        table: dict[type, Callable[[Any], Any]] = dict(copyreg.dispatch_table)
        table.update(dict.fromkeys(_subclasses(Framework), _reduce_framework))
        table.update(dict.fromkeys(_subclasses(Plugin), _reduce_plugin))
        table[PodInfo] = _reduce_pod_info
        self.dispatch_table = table
