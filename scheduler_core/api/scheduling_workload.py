"""The scheduling.k8s.io/v1alpha1 Workload (GenericWorkload, v1.35 alpha): named pod groups,
each scheduled pod by pod (`basic`) or all-or-nothing (`gang`, at least minCount members at
once). Pods join a group through spec.workloadRef; GangScheduling reads the groups."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PodGroup:
    name: str
    gang_min_count: int | None = None  # None: the basic policy

    @property
    def is_gang(self) -> bool:
        return self.gang_min_count is not None


@dataclass(frozen=True)
class Workload:
    name: str
    namespace: str = "default"
    pod_groups: tuple[PodGroup, ...] = field(default_factory=tuple)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def pod_group(self, name: str) -> PodGroup | None:
        for g in self.pod_groups:
            if g.name == name:
                return g
        return None
