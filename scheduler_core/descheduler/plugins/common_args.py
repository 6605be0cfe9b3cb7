"""The args most Deschedule strategies share: `namespaces` (include or exclude) and
`labelSelector` (the pods considered)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.api.types import LabelSelector, Pod

from .. import argsreader as ar
from ..podutil import in_namespaces


@dataclass(frozen=True)
class PodSelection:
    namespaces: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    label_selector: LabelSelector | None = None

    def selects(self, pod: Pod) -> bool:
        if not in_namespaces(pod, self.namespaces):
            return False
        return self.label_selector is None or self.label_selector.matches(pod.labels)


def parse_selection(m: dict[str, Any], path: str, err: ar.Err, label_selector: bool = True) -> PodSelection:
    return PodSelection(namespaces=ar.namespaces(m.get("namespaces"), f"{path}.namespaces", err),
                        label_selector=ar.label_selector(m.get("labelSelector"), f"{path}.labelSelector", err)
                        if label_selector else None)
