"""Registers a class under a name other than the one it declares."""

from scheduler_core.framework.api import ScorePlugin


class Spread(ScorePlugin):
    name = "Spread"


def register(registry) -> None:  # noqa: ANN001
    registry.register("SpreadAlias", Spread)
