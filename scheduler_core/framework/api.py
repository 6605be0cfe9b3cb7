"""The plugin API: everything an out-of-tree plugin needs, from one module (upstream's staging
module `k8s.io/kube-scheduler/framework`, which scheduler-plugins import as `fwk`).

Why a module of its own: the framework's interfaces live where upstream keeps them
(`interface.py`, `status.py`, `cycle_state.py`, `types.py`, `plugins/registry.py`), and their
internals move as the engine does. A plugin written outside the project imports only from
here, so what is listed in `__all__` is the promise: these names keep their meaning, and a
change to one of them is called out in docs/plugins.md.

A plugin module defines `register(registry)` and calls `registry.register(name, factory)` for
each plugin (upstream's app.WithPlugin); the factory is the plugin class, constructed as
`factory(args, handle)` with the profile's pluginConfig args (a plain dict as written in the
YAML, `{}` without any) and the framework handle. docs/plugins.md walks through one.
"""

from __future__ import annotations

from scheduler_core.api.types import Node, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    BindPlugin,
    ClusterEventWithHint,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    PermitPlugin,
    Plugin,
    PluginArgsError,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from scheduler_core.framework.plugins.registry import Registry, RegistryError
from scheduler_core.framework.status import SKIP, Code, Status, is_success
from scheduler_core.framework.types import (
    ActionType,
    ClusterEvent,
    EventResource,
    NodeInfo,
    NodeScore,
    PodInfo,
    PreFilterResult,
    QueuedPodInfo,
    QueueingHint,
    Resource,
)

__all__ = [
    # verdicts
    "Status", "Code", "SKIP", "is_success",
    # per-cycle state and what plugins read
    "CycleState", "NodeInfo", "PodInfo", "Resource", "NodeScore", "PreFilterResult", "QueuedPodInfo",
    "Pod", "Node", "Handle",
    # extension points
    "Plugin", "PreEnqueuePlugin", "QueueSortPlugin", "PreFilterPlugin", "PreFilterExtensions",
    "FilterPlugin", "PostFilterPlugin", "PostFilterResult", "PreScorePlugin", "ScorePlugin",
    "ScoreExtensions", "ReservePlugin", "PermitPlugin", "PreBindPlugin", "BindPlugin", "PostBindPlugin",
    "MAX_NODE_SCORE", "MIN_NODE_SCORE",
    # requeueing after cluster events
    "EnqueueExtensions", "ClusterEventWithHint", "ClusterEvent", "EventResource", "ActionType", "QueueingHint",
    # args and registration
    "PluginArgsError", "Registry", "RegistryError",
]
