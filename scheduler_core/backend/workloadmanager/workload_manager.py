"""The scheduler's view of pod groups (upstream backend/workloadmanager), kept only while the
GenericWorkload gate is on.

The pod informer's handlers register every pod with a workloadRef here before the cache or the
queue sees it; GangScheduling reads how many members exist, which are assumed (reserved and
waiting at Permit) and which are bound, and the group's shared Permit deadline. Members are
keyed by pod key ("namespace/name"), which is what the engine's waiting-pod map uses.
"""

from __future__ import annotations

import dataclasses

from scheduler_core.api.types import Pod

# upstream DefaultSchedulingTimeoutDuration: a gang's members wait at most this long at Permit.
DEFAULT_SCHEDULING_TIMEOUT = 300.0


@dataclasses.dataclass
class PodGroupInfo:
    """One (namespace, workload, pod group, replica key) group's members and deadline."""

    all_pods: dict[str, Pod] = dataclasses.field(default_factory=dict)  # insertion order
    unscheduled: set[str] = dataclasses.field(default_factory=set)
    assumed: set[str] = dataclasses.field(default_factory=set)
    assigned: set[str] = dataclasses.field(default_factory=set)
    scheduling_deadline: float | None = None
    deadline_setter: str = ""  # the member whose Permit set the current deadline (for the UI)

    def add_pod(self, pod: Pod) -> None:
        self.all_pods[pod.key] = pod
        (self.assigned if pod.node_name else self.unscheduled).add(pod.key)

    def update_pod(self, old: Pod, new: Pod) -> None:
        self.all_pods[new.key] = new
        if not old.node_name and new.node_name:
            self.assigned.add(new.key)
            self.unscheduled.discard(new.key)
            self.assumed.discard(new.key)

    def delete_pod(self, key: str) -> None:
        self.all_pods.pop(key, None)
        self.unscheduled.discard(key)
        self.assumed.discard(key)
        self.assigned.discard(key)

    def unscheduled_pods(self) -> list[Pod]:
        """Members neither assumed nor bound, in the order they were added."""
        return [p for k, p in self.all_pods.items() if k in self.unscheduled]

    def scheduling_timeout(self, now: float, pod_key: str = "") -> float:
        """Seconds left to the group's deadline, starting a new 5-minute one when none is
        running. On the virtual clock a deadline equal to now has passed (upstream compares
        wall-clock instants, which are never equal)."""
        if self.scheduling_deadline is None or self.scheduling_deadline <= now:
            self.scheduling_deadline = now + DEFAULT_SCHEDULING_TIMEOUT
            self.deadline_setter = pod_key
        return self.scheduling_deadline - now

    def assume_pod(self, key: str) -> None:
        self.assumed.add(key)
        self.unscheduled.discard(key)

    def forget_pod(self, key: str) -> None:
        self.unscheduled.add(key)
        self.assumed.discard(key)


class WorkloadManager:
    """Pod groups by key; a group exists while it has members."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str, str], PodGroupInfo] = {}

    @staticmethod
    def group_key(pod: Pod) -> tuple[str, str, str, str] | None:
        ref = pod.workload_ref
        if ref is None:
            return None
        return (pod.namespace, ref.name, ref.pod_group, ref.pod_group_replica_key)

    def add_pod(self, pod: Pod) -> None:
        key = self.group_key(pod)
        if key is None:
            return
        self.groups.setdefault(key, PodGroupInfo()).add_pod(pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        key = self.group_key(new)
        if key is None:
            return
        info = self.groups.get(key)
        if info is None:
            self.groups[key] = info = PodGroupInfo()
            info.add_pod(new)
            return
        info.update_pod(old, new)

    def delete_pod(self, pod: Pod) -> None:
        key = self.group_key(pod)
        if key is None:
            return
        info = self.groups.get(key)
        if info is None:
            return
        info.delete_pod(pod.key)
        if not info.all_pods:
            del self.groups[key]

    def pod_group_info(self, pod: Pod) -> PodGroupInfo | None:
        """The group of `pod` (None: upstream's "internal pod group state doesn't exist")."""
        key = self.group_key(pod)
        return None if key is None else self.groups.get(key)
