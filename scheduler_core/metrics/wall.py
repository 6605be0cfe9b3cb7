"""The playground's own wall time per plugin and extension point (not a cluster metric).

Upstream measures plugin_execution_duration_seconds on the scheduler's real clock; this engine's
runs are on a virtual clock, so the only real time there is to report is how long this Python
engine spent in each plugin. `PluginWallClock.instrument` wraps the plugin methods of a
simulation's profiles (on the instances, for this process only) with a perf_counter timer; it
never enters the event stream, a checkpoint or anything compared for determinism.

Two users: the command line's `simulate --metrics` instruments once for the whole run; the web
worker attaches a fresh clock around each unit it executes (`attached`) and takes the wrappers
off again, so between units the plugins are exactly as built and nothing is paid when no clock
is attached. A checkpoint never holds a wrapper either way: it pickles frameworks and plugins as
references to the ones rebuilt from the configuration (`Simulation.checkpoint`), so instance
attributes of a plugin are not part of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# extension point list in Framework.points -> [(plugin method, extension point label)]
POINT_METHODS: dict[str, tuple[tuple[str, str], ...]] = {
    "preEnqueue": (("pre_enqueue", "PreEnqueue"),),
    "preFilter": (("pre_filter", "PreFilter"),),
    "filter": (("filter", "Filter"), ("filter_nodes", "Filter")),
    "postFilter": (("post_filter", "PostFilter"),),
    "preScore": (("pre_score", "PreScore"),),
    "score": (("score", "Score"), ("score_nodes", "Score")),
    "reserve": (("reserve", "Reserve"), ("unreserve", "Unreserve")),
    "permit": (("permit", "Permit"),),
    "preBind": (("pre_bind_pre_flight", "PreBindPreFlight"), ("pre_bind", "PreBind")),
    "bind": (("bind", "Bind"),),
    "postBind": (("post_bind", "PostBind"),),
}


class PluginWallClock:
    """Seconds and calls per (plugin, extension point, profile)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds: dict[tuple[str, str, str], float] = {}
        self.calls: dict[tuple[str, str, str], int] = {}
        self._clock = clock
        self._wrapped: list[tuple[Any, str]] = []  # (plugin, method) given an instance wrapper now
        # The wrappers, made once per set of profiles: a worker attaches them at every step, so
        # attaching is only putting them on the instances (their accumulators are cleared in
        # place by `take_rows`, never replaced).
        self._plan: list[tuple[Any, str, Callable[..., Any]]] = []
        self._plan_for: dict[str, Any] | None = None

    def instrument(self, profiles: dict[str, Any]) -> None:
        """Time every plugin method the profiles' frameworks call (each instance once). A method
        already set on the instance (another clock's wrapper, a plugin's own attribute) is left
        alone, so `detach` removes only what this call added."""
        if self._plan_for is not profiles:
            self._plan, self._plan_for = self._make_plan(profiles), profiles
        for plugin, method, wrapper in self._plan:
            attrs = vars(plugin)
            if method not in attrs:
                attrs[method] = wrapper
                self._wrapped.append((plugin, method))

    def _make_plan(self, profiles: dict[str, Any]) -> list[tuple[Any, str, Callable[..., Any]]]:
        plan: list[tuple[Any, str, Callable[..., Any]]] = []
        for profile, fwk in profiles.items():
            done: set[tuple[int, str]] = set()
            for point, methods in POINT_METHODS.items():
                for plugin in fwk.points.get(point, ()):
                    for method, label in methods:
                        if (id(plugin), method) in done or method in vars(plugin) \
                                or not callable(getattr(plugin, method, None)):
                            continue
                        done.add((id(plugin), method))
                        plan.append((plugin, method, self._timed(getattr(plugin, method),
                                                                 (plugin.name, label, profile))))
        return plan

    def detach(self) -> None:
        """Take this clock's wrappers off the plugins (the class methods answer again)."""
        for plugin, method in self._wrapped:
            vars(plugin).pop(method, None)
        self._wrapped = []

    @contextmanager
    def attached(self, profiles: dict[str, Any]) -> Iterator[PluginWallClock]:
        """Time the plugins' calls for the duration of the block only."""
        self.instrument(profiles)
        try:
            yield self
        finally:
            self.detach()

    def rows(self) -> list[list[Any]]:
        """[[plugin, extension point, profile, seconds, calls]], sorted: a JSON-able record."""
        return [[*key, round(self.seconds[key], 9), self.calls.get(key, 0)] for key in sorted(self.seconds)]

    def take_rows(self) -> list[list[Any]]:
        """`rows`, then start again from zero (the worker's record of one unit)."""
        rows = self.rows()
        self.seconds.clear()
        self.calls.clear()
        return rows

    def add_rows(self, rows: list[list[Any]]) -> None:
        """Add a record made by `rows` (e.g. one unit's, to total a run's)."""
        for plugin, point, profile, seconds, calls in rows:
            key = (plugin, point, profile)
            self.seconds[key] = self.seconds.get(key, 0.0) + float(seconds)
            self.calls[key] = self.calls.get(key, 0) + int(calls)

    def _timed(self, fn: Callable[..., Any], key: tuple[str, str, str]) -> Callable[..., Any]:
        seconds, calls, clock = self.seconds, self.calls, self._clock

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[key] = seconds.get(key, 0.0) + (clock() - t0)
                calls[key] = calls.get(key, 0) + 1

        return timed
