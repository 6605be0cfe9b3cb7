"""The Priority admission plugin: priority and preemptionPolicy resolved from PriorityClasses."""

from __future__ import annotations

from collections.abc import Iterable

from scheduler_core.api.default_toleration_seconds import PLUGIN_NAME as DEFAULT_TOLERATION_SECONDS
from scheduler_core.api.system_priority_classes import SYSTEM_PRIORITY_CLASSES
from scheduler_core.api.types import PREEMPT_LOWER_PRIORITY, Pod, PriorityClass
from scheduler_core.loader.reader import FieldReader

__all__ = ["PodRaw", "PriorityAdmission", "SYSTEM_PRIORITY_CLASSES",
           "HIGHEST_USER_DEFINABLE_PRIORITY"]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000


class PodRaw:
    """What admission needs besides the Pod: whether priority/preemptionPolicy were given."""

    __slots__ = ("priority", "preemption_policy")

    def __init__(self, priority: int | None, preemption_policy: str | None) -> None:
        self.priority = priority
        self.preemption_policy = preemption_policy


class PriorityAdmission:
    """The Priority admission plugin over the scenario's PriorityClasses."""

    def __init__(self, classes: Iterable[PriorityClass], disabled: Iterable[str] = ()) -> None:
        # The other admission plugins a pod goes through (see loader/apiserver.py).
        self.default_toleration_seconds = DEFAULT_TOLERATION_SECONDS not in set(disabled)
        # The first pod with spec.resources, as the error a run without PodLevelResources raises.
        self.pod_resources_error: Exception | None = None
        self.classes: dict[str, PriorityClass] = dict(SYSTEM_PRIORITY_CLASSES)
        for pc in classes:
            self.classes[pc.name] = pc
        defaults = [pc for pc in self.classes.values() if pc.global_default]
        # Upstream picks the lowest value if a race ever created two defaults.
        self.default = min(defaults, key=lambda pc: pc.value) if defaults else None

    def admit(self, r: FieldReader, pod: Pod, raw: PodRaw) -> None:
        """Resolve priority and preemptionPolicy as the Priority admission plugin does.

        One deliberate leniency, because the conformance recordings were made against an API
        server that kept it: a pod naming no PriorityClass but giving `spec.priority` keeps that
        priority (and its own preemptionPolicy) instead of being rejected.
        """
        explicit_policy = raw.preemption_policy
        if not pod.priority_class_name:
            if raw.priority is not None:
                pod.priority = raw.priority
                pod.preemption_policy = explicit_policy or PREEMPT_LOWER_PRIORITY
                return
            if self.default is None:
                pod.priority = 0
                pod.preemption_policy = explicit_policy or PREEMPT_LOWER_PRIORITY
                return
            pod.priority_class_name = self.default.name
            value, policy = self.default.value, self.default.preemption_policy
        else:
            pc = self.classes.get(pod.priority_class_name)
            if pc is None:
                raise r.err("spec.priorityClassName", "Forbidden: no PriorityClass with name "
                                                      f"{pod.priority_class_name} was found")
            value, policy = pc.value, pc.preemption_policy
        if raw.priority is not None and raw.priority != value:
            raise r.err("spec.priority", f"Forbidden: the integer value of priority "
                                         f"({raw.priority}) must not be provided in pod spec; "
                                         f"priority admission controller computed {value} from "
                                         "the given PriorityClass name")
        if explicit_policy is not None and explicit_policy != policy:
            raise r.err("spec.preemptionPolicy", "Forbidden: the string value of "
                                                 f"PreemptionPolicy ({explicit_policy}) "
                                                 "must not be provided in pod spec; priority "
                                                 f"admission controller computed {policy} from "
                                                 "the given PriorityClass name")
        pod.priority = value
        pod.preemption_policy = policy

