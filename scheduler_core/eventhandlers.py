"""The informer handlers: what the scheduler does when the API reports a node or pod change
(upstream eventhandlers.go).

Each handler keeps the cache and the scheduling queue in step with the API: assigned pods go to
the cache, unassigned ones of this scheduler to the queue, and every change that may make an
unschedulable pod schedulable moves pods out of the unschedulable pool (the cluster events the
plugins registered for). The API server (apiserver/server.py) calls them after each write, as
the informers would; the controllers watching the same objects hear it after the scheduler.

`EventHandlers` is a part of `Scheduler` (a mixin over its cache, queue, cluster and clock),
as upstream's handlers are methods of its Scheduler.
"""

from __future__ import annotations

from scheduler_core.api.types import Node, Pod
from scheduler_core.backend.cache.cache import CacheError
from scheduler_core.framework import events as fe
from scheduler_core.framework.types import ClusterEvent


class EventHandlers:
    """The `on_*` handlers the API changes of `APIServer` are followed by."""

    def on_node_add(self, node: Node) -> None:
        self.cache.add_node(node)
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_NODE_ADD, None, node, None)

    def on_node_update(self, old: Node, new: Node) -> None:
        self.cache.update_node(old, new)
        for evt in fe.node_scheduling_properties_change(new, old):
            self.queue.move_all_to_active_or_backoff_queue(evt, old, new, None)

    def on_node_delete(self, node: Node) -> None:
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_NODE_DELETE, node, None, None)
        try:
            self.cache.remove_node(node)
        except CacheError:
            pass

    def on_cluster_event(self, event: ClusterEvent, old: object, new: object) -> None:
        """A PV, PVC or ResourceClaim write: only the queue's hints look at it."""
        self.queue.move_all_to_active_or_backoff_queue(event, old, new, None)

    def on_pod_add(self, pod: Pod) -> None:
        wm = self.workload_manager
        if wm is not None:  # registered before the cache or the queue sees the pod
            wm.add_pod(pod)
        if pod.node_name:
            self._add_assigned_pod_to_cache(pod)
        elif self.responsible_for_pod(pod):
            self.queue.add(pod)
            if wm is not None and self.feature_gates.enabled("GangScheduling"):
                self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_UNSCHEDULED_POD_ADD, None, pod, None)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        if self.workload_manager is not None:
            self.workload_manager.update_pod(old, new)
        if old.node_name:
            try:
                self.cache.update_pod(old, new)
            except CacheError:
                pass
            for evt in fe.pod_scheduling_properties_change(new, old):
                if self.feature_gates.scheduler_queueing_hints:
                    self.queue.move_all_to_active_or_backoff_queue(evt, old, new, None)
                else:  # the pre-hint path: only pods an affinity term or spreading relates
                    self.queue.assigned_pod_updated(old, new, evt)
        elif new.node_name:
            self._add_assigned_pod_to_cache(new)
            if self.responsible_for_pod(old):
                self.queue.delete(old)
        elif self.responsible_for_pod(old):
            if self.cache.is_assumed_pod(new):
                return
            self.queue.update(old, new)
            if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
                prio = old.priority
                self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, old, None, lambda p, prio=prio: p.priority <= prio)

    def on_pod_delete_after_pop(self, pod: Pod) -> None:
        """The Delete of a pod this scheduler's own preemption deleted (SchedulerAsyncPreemption):
        its informer reports it after the next Pop (apiserver/informer_delivery.py)."""
        self.bind_updates.add_delete(pod)

    def on_pod_delete(self, pod: Pod) -> None:
        if self.workload_manager is not None:
            self.workload_manager.delete_pod(pod)
        if pod.node_name:
            try:
                self.cache.remove_pod(pod)
            except CacheError:
                pass
            self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, pod, None, None)
        elif self.responsible_for_pod(pod):
            self.queue.delete(pod)
            if self.cache.is_assumed_pod(pod):
                self._handle_assumed_pod_deletion(pod)
            elif pod.nominated_node_name:
                prio = pod.priority
                self.queue.move_all_to_active_or_backoff_queue(
                    fe.EVENT_ASSIGNED_POD_DELETE, pod, None, lambda p, prio=prio: p.priority <= prio)

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        assumed = self.cache.get_pod(pod)
        if assumed is None:
            return
        wp = self.waiting_pods.pop(pod.key, None)
        if wp is None:
            try:
                self.cache.forget_pod(assumed)
            except CacheError:
                pass
        else:
            self._reject_waiting_pod(wp, "pod deleted")
        self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_DELETE, assumed, None, None)

    def _add_assigned_pod_to_cache(self, pod: Pod) -> None:
        try:
            self.cache.add_pod(pod)
        except CacheError:
            pass
        if self.feature_gates.scheduler_queueing_hints:
            self.queue.move_all_to_active_or_backoff_queue(fe.EVENT_ASSIGNED_POD_ADD, None, pod, None)
        else:  # the pre-hint path: only pods an affinity term or spreading relates to this pod
            self.queue.assigned_pod_added(pod)
