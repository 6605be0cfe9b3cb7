"""NodeResourcesAllocatable, written against the playground's plugin API.

A re-implementation of the Score plugin of the same name in kubernetes-sigs/scheduler-plugins
(pkg/noderesources): it scores a node by its *allocatable* resources, not by what is free on it.
In mode `Least` (the default) the node with the least allocatable resources wins, so pods fill
the small nodes first and the big ones stay free for big pods; in mode `Most` the biggest node
wins. docs/plugins.md walks through this file step by step.

Load it with `python -m scheduler_core simulate FILE --plugins allocatable_plugin` (this
directory on PYTHONPATH) or, in the web app, PLAYGROUND_PLUGINS=allocatable_plugin.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.api import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    CycleState,
    Handle,
    NodeInfo,
    NodeScore,
    PluginArgsError,
    Pod,
    Registry,
    ScorePlugin,
    Status,
)

NAME = "NodeResourcesAllocatable"
LEAST, MOST = "Least", "Most"
# A millicore weighs as much as a MiB: the weights of the upstream plugin's defaults.
DEFAULT_RESOURCES = {"memory": 1, "cpu": 1 << 20}
_ARGS_FIELDS = {"mode", "resources", "apiVersion", "kind"}


def _parse_args(args: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """(mode, resource -> weight) from the pluginConfig args; PluginArgsError naming the field."""
    unknown = sorted(set(args) - _ARGS_FIELDS)
    if unknown:
        raise PluginArgsError(f'{NAME}: unknown field "{unknown[0]}" (known: mode, resources)')
    mode = args.get("mode") or LEAST
    if mode not in (LEAST, MOST):
        raise PluginArgsError(f"{NAME}: invalid mode, got {mode}")
    resources = args.get("resources") or []
    if not isinstance(resources, list):
        raise PluginArgsError(f"{NAME}: resources: expected a list of {{name, weight}}")
    weights: dict[str, int] = {}
    for i, spec in enumerate(resources):
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise PluginArgsError(f"{NAME}: resources[{i}]: expected {{name: <resource>, weight: <int>}}")
        weight = spec.get("weight", 0)
        if not isinstance(weight, int) or isinstance(weight, bool) or weight <= 0:
            raise PluginArgsError(f"{NAME}: resource Weight of {spec['name']} should be a positive value, "
                                  f"got {weight}")
        weights[spec["name"]] = weight
    return mode, weights or dict(DEFAULT_RESOURCES)


def _allocatable(node_info: NodeInfo, resource: str) -> int:
    """The node's allocatable amount of one resource, in its base unit (millicores, bytes)."""
    alloc = node_info.allocatable
    if resource == "cpu":
        return alloc.milli_cpu
    if resource == "memory":
        return alloc.memory
    if resource == "ephemeral-storage":
        return alloc.ephemeral_storage
    return alloc.scalar_resources.get(resource, 0)  # extended resources; anything else counts 0


def _div_toward_zero(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero; Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class NodeResourcesAllocatable(ScorePlugin):
    """Score: the weighted mean of the node's allocatable resources, negated in mode Least;
    NormalizeScore maps the lowest..highest raw score onto 0..100."""

    name = NAME

    def __init__(self, args: dict[str, Any] | None = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self.mode, self.weights = _parse_args(self.args)
        self.weight_sum = sum(self.weights.values())
        self.sign = -1 if self.mode == LEAST else 1

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        total = sum(self.sign * _allocatable(node_info, res) * w for res, w in self.weights.items())
        return _div_toward_zero(total, self.weight_sum), None

    def score_extensions(self) -> NodeResourcesAllocatable:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        if not scores:
            return None
        highest = max(s.score for s in scores)
        lowest = min(s.score for s in scores)
        old_range = highest - lowest
        new_range = MAX_NODE_SCORE - MIN_NODE_SCORE
        for s in scores:
            s.score = MIN_NODE_SCORE if old_range == 0 else (s.score - lowest) * new_range // old_range + MIN_NODE_SCORE
        return None


def register(registry: Registry) -> None:
    """The module's entry point: `--plugins allocatable_plugin` calls it once per process."""
    registry.register(NAME, NodeResourcesAllocatable)
