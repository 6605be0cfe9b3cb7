"""The playground's own wall time per plugin and extension point (not a cluster metric).

Upstream measures plugin_execution_duration_seconds on the scheduler's real clock; this engine's
runs are on a virtual clock, so the only real time there is to report is how long this Python
engine spent in each plugin. `PluginWallClock.instrument` wraps the plugin methods of a
simulation's profiles (on the instances, for this process only) with a perf_counter timer. It is
for the command line's `simulate --metrics`: it never enters the event stream, a checkpoint or
anything compared for determinism.
"""

from __future__ import annotations

import time
from collections.abc import Callable
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

    def instrument(self, profiles: dict[str, Any]) -> None:
        """Time every plugin method the profiles' frameworks call (each instance once)."""
        for profile, fwk in profiles.items():
            done: set[tuple[int, str]] = set()
            for point, methods in POINT_METHODS.items():
                for plugin in fwk.points.get(point, ()):
                    for method, label in methods:
                        if (id(plugin), method) in done or not callable(getattr(plugin, method, None)):
                            continue
                        done.add((id(plugin), method))
                        setattr(plugin, method, self._timed(getattr(plugin, method),
                                                            (plugin.name, label, profile)))

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
