"""Registers a plugin under an in-tree name: refused (upstream: a plugin named ... already exists)."""

from scheduler_core.framework.api import FilterPlugin, Registry


class NodeResourcesFit(FilterPlugin):
    name = "NodeResourcesFit"


def register(registry: Registry) -> None:
    registry.register("NodeResourcesFit", NodeResourcesFit)
