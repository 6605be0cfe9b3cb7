"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), as the engine uses it.

The loader (`scheduler_core.loader.scheduler_config`) fills these from YAML and applies upstream's
defaults; the framework runtime expands `multi_point` into per-extension-point plugin lists
exactly as upstream's runtime.NewFramework does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0  # 0 = adaptive
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10

EXTENSION_POINTS = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind",
)


@dataclass
class PluginRef:
    name: str
    weight: int | None = None


@dataclass
class PluginSet:
    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[PluginRef] = field(default_factory=list)


@dataclass
class Plugins:
    """Per extension point (keys of EXTENSION_POINTS plus "multiPoint") the custom sets."""

    sets: dict[str, PluginSet] = field(default_factory=dict)

    def get(self, point: str) -> PluginSet:
        return self.sets.get(point) or PluginSet()


@dataclass
class Extender:
    url_prefix: str
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    bind_verb: str = ""
    weight: int = 1
    enable_https: bool = False
    http_timeout: float = 30.0
    node_cache_capable: bool = False
    managed_resources: list[dict[str, Any]] = field(default_factory=list)
    ignorable: bool = False


@dataclass
class Profile:
    scheduler_name: str = "default-scheduler"
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins | None = None  # custom plugins merged over the v1.35 defaults
    plugin_config: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> args


@dataclass
class KubeSchedulerConfiguration:
    profiles: list[Profile] = field(default_factory=lambda: [Profile()])
    percentage_of_nodes_to_score: int = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    pod_initial_backoff_seconds: int = DEFAULT_POD_INITIAL_BACKOFF_SECONDS
    pod_max_backoff_seconds: int = DEFAULT_POD_MAX_BACKOFF_SECONDS
    parallelism: int = 16
    extenders: list[Extender] = field(default_factory=list)
