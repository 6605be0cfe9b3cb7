"""A plugin module without its entry function: refused naming the module."""

from scheduler_core.framework.api import ScorePlugin


class Lonely(ScorePlugin):
    name = "Lonely"
