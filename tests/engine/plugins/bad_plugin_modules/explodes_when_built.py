"""Registers fine; its plugin's constructor raises when a profile enables it."""

from scheduler_core.framework.api import FilterPlugin


class Exploding(FilterPlugin):
    name = "Exploding"

    def __init__(self, args=None, handle=None) -> None:  # noqa: ANN001
        super().__init__(args, handle)
        raise ValueError("cannot reach the inventory service")


def register(registry) -> None:  # noqa: ANN001
    registry.register("Exploding", Exploding)
