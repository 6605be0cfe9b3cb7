"""What a `Framework` is given by whoever runs it (upstream framework/runtime/framework.go's
Options: WithSnapshotSharedLister, WithInformerFactory, WithExtenders, WithEventRecorder, ...,
and SetPodNominator once the queue exists).

The framework and its plugins reach scheduler-wide services only through these, so the
framework package never imports the scheduler: the scheduler builds one `FrameworkOptions` and
hands it to each profile's framework.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import PodInfo

if TYPE_CHECKING:
    from random import Random

    from scheduler_core.apiserver.store.cluster import ClusterState
    from scheduler_core.backend.cache.snapshot import Snapshot
    from scheduler_core.events.recorder import EventSink


class Clock(Protocol):
    """The run's virtual clock."""

    def now(self) -> float: ...


class PodNominator(Protocol):
    """Nominated pods per node (upstream PodNominator; the scheduling queue is one)."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...


class PodActions(Protocol):
    """The API writes plugins ask for: DefaultBinder's binding, DefaultPreemption's victim
    deletion and its clearing of a lower-priority pod's nomination."""

    def bind_pod(self, pod: Pod, node_name: str) -> Status | None: ...

    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None: ...

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None: ...


@dataclass
class FrameworkOptions:
    """The services of one scheduler, shared by all its profiles' frameworks.

    `current_cycle` gives the scheduling cycle number events are stamped with (the queue's
    counter: the queue is built after the frameworks, so it is read when an event is emitted).
    """

    snapshot_shared_lister: Snapshot
    cluster: ClusterState  # the informers' objects (ClusterLister questions plugins ask)
    clock: Clock
    rng: Random
    extenders: list[Any]
    event_recorder: EventSink
    pod_actions: PodActions
    current_cycle: Callable[[], int]
    # The pod groups (backend.workloadmanager), only while GenericWorkload is on (else None).
    workload_manager: Any = None
    # The API server the scheduler writes to (upstream's Handle.ClientSet): the ResourceClaim,
    # PV and PVC writes of DynamicResources and VolumeBinding.
    client: Any = None
