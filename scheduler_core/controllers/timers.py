"""The controllers that act while a run plays, as timers on the virtual clock: one list.

Upstream each of them is a loop of its own (kube-controller-manager's node-lifecycle and
taint-eviction controllers, the kubelet finishing a graceful deletion, the descheduler's
interval) that sleeps until its work is due and watches the API server for changes. Here a run
keeps one list of them, built from `CONTROLLERS` (scheduler_core/simulation.py, the one module
above both the controllers and the descheduler): the simulation asks each when it next wakes
(`next_wakeup`) and, once the virtual clock is there, runs the due work of each in list order
(`run_due`), so equal times resolve the same way on every run and every replay. The API server
delivers its writes to the ones that watch (the `on_*` methods a controller overrides).

Adding a controller (docs/architecture.md): a `Controller` subclass with a `name`,
`next_wakeup` and `run_due` (and the `on_*` watch methods it needs), and one entry in
`CONTROLLERS`: a function of the run's API server that builds it (its `for_run`). Its state is
pickled with the run's checkpoints; everything it changes goes through the API server, so it is
in the stream (a new kind of event goes in `EVENT_TYPES`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scheduler_core.api.types import Node, Pod

__all__ = ["WATCH_METHODS", "Controller", "watchers"]

# What the API server may deliver to a controller, in the informer's words.
WATCH_METHODS = ("on_node_add", "on_node_update", "on_node_delete", "on_pod_add", "on_pod_update",
                 "on_pod_delete", "on_kubelet_status")


class Controller:
    """A controller of the run. `next_wakeup` and `run_due` take the simulation (its API server
    is `sim.apiserver`, its clock `sim.clock`); the watch methods the API server (`api`)."""

    name = "controller"

    def next_wakeup(self, sim: Any) -> float | None:
        """The virtual time its next work is due (None: nothing pending)."""
        return None

    def run_due(self, sim: Any, now: float) -> bool:
        """Do the work due at `now`. True asks the run to report settling anew (the cluster
        changed on the controller's own initiative)."""
        return False

    # ---- watches (informer events from the API server; the defaults ignore them) -------------
    def on_node_add(self, api: Any, node: Node) -> None: ...

    def on_node_update(self, api: Any, old: Node, new: Node) -> None: ...

    def on_node_delete(self, api: Any, node: Node) -> None: ...

    def on_pod_add(self, api: Any, pod: Pod) -> None: ...

    def on_pod_update(self, api: Any, old: Pod, new: Pod) -> None: ...

    def on_pod_delete(self, api: Any, pod: Pod) -> None: ...

    def on_kubelet_status(self, api: Any, node_name: str, status: str) -> None:
        """A node's kubelet posts Ready=`status` ("Unknown": it stops posting)."""


def watchers(controllers: list[Controller], method: str) -> tuple[Controller, ...]:
    """The controllers that override the watch `method` (the API server calls only those)."""
    base = getattr(Controller, method)
    return tuple(c for c in controllers if getattr(type(c), method) is not base)
