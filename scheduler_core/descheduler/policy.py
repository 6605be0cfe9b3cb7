"""The DeschedulerPolicy document (descheduler/v1alpha2), as the loader produced it.

Upstream's pkg/api types: a policy is a list of profiles, each naming the plugins it enables
at the Deschedule and Balance extension points and giving their args (pluginConfig), plus the
cycle-wide eviction limits. `descheduling_interval` stands in for the descheduler's
`--descheduling-interval` flag (a command-line setting upstream, a field here because a
scenario file is the playground's only configuration).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

API_VERSION = "descheduler/v1alpha2"
KIND = "DeschedulerPolicy"


@dataclass(frozen=True)
class PluginSet:
    enabled: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plugins:
    """The extension points a profile enables plugins at. Filter and PreEvictionFilter name the
    evictor plugin (DefaultEvictor, the only one); Deschedule and Balance the strategies."""

    deschedule: PluginSet = field(default_factory=PluginSet)
    balance: PluginSet = field(default_factory=PluginSet)
    filter: PluginSet = field(default_factory=PluginSet)
    pre_eviction_filter: PluginSet = field(default_factory=PluginSet)


@dataclass(frozen=True)
class PluginConfig:
    name: str
    args: Any  # the plugin's typed args (see plugins.registry)


@dataclass(frozen=True)
class DeschedulerProfile:
    name: str
    plugin_configs: tuple[PluginConfig, ...] = ()
    plugins: Plugins = field(default_factory=Plugins)

    def args_for(self, name: str) -> Any:
        return next((c.args for c in self.plugin_configs if c.name == name), None)


@dataclass(frozen=True)
class DeschedulerPolicy:
    profiles: tuple[DeschedulerProfile, ...] = ()
    node_selector: str = ""  # label selector text ("k=v,k2"): the nodes the descheduler considers
    max_no_of_pods_to_evict_per_node: int | None = None
    max_no_of_pods_to_evict_per_namespace: int | None = None
    max_no_of_pods_to_evict_total: int | None = None
    descheduling_interval: float | None = None  # virtual seconds between passes; None: only on demand
