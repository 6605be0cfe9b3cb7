"""The PersistentVolumes by name, filed by class as they are written.

VolumeBinding lists a class's PVs in name order for every pod with a WaitForFirstConsumer claim
(upstream's assume cache keeps the same index). Listing them by scanning and sorting every PV
costs a pass over all PVs per pod, which grows with the cluster's provisioned volumes; this dict
keeps each class's PVs in name order as they are created, replaced and removed, so a listing
is a copy of one class's list.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from scheduler_core.api.storage_types import PersistentVolume, volume_class

__all__ = ["PVIndex"]

_MISSING = object()


class PVIndex(dict):
    """name -> PersistentVolume, with `of_class(name)`; every write goes through `__setitem__`
    or the removals below, which keep the per-class lists in step."""

    def __init__(self, items: Iterable[tuple[str, PersistentVolume]] | dict[str, PersistentVolume] = ()) -> None:
        super().__init__()
        # class -> (PV names in order, the PVs in the same order)
        self._by_class: dict[str, tuple[list[str], list[PersistentVolume]]] = {}
        for name, pv in (items.items() if isinstance(items, dict) else items):
            self[name] = pv

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (a checkpoint) and copied as the plain mapping; the lists are rebuilt."""
        return (PVIndex, (dict(self),))

    def _file(self, name: str, pv: PersistentVolume) -> None:
        names, pvs = self._by_class.setdefault(volume_class(pv), ([], []))
        i = bisect_left(names, name)
        if i < len(names) and names[i] == name:
            pvs[i] = pv
        else:
            names.insert(i, name)
            pvs.insert(i, pv)

    def _unfile(self, name: str, pv: PersistentVolume) -> None:
        entry = self._by_class.get(volume_class(pv))
        if entry is None:
            return
        names, pvs = entry
        i = bisect_left(names, name)
        if i < len(names) and names[i] == name:
            del names[i]
            del pvs[i]

    def __setitem__(self, name: str, pv: PersistentVolume) -> None:
        old = dict.get(self, name, _MISSING)
        if old is not _MISSING and volume_class(old) != volume_class(pv):
            self._unfile(name, old)
        super().__setitem__(name, pv)
        self._file(name, pv)

    def __delitem__(self, name: str) -> None:
        old = dict.__getitem__(self, name)
        super().__delitem__(name)
        self._unfile(name, old)

    def pop(self, name: str, *default: Any) -> Any:
        if name not in self:
            return dict.pop(self, name, *default)
        old = dict.pop(self, name)
        self._unfile(name, old)
        return old

    def popitem(self) -> tuple[str, PersistentVolume]:
        name, old = dict.popitem(self)
        self._unfile(name, old)
        return name, old

    def clear(self) -> None:
        super().clear()
        self._by_class.clear()

    def setdefault(self, name: str, default: Any = None) -> Any:
        if name not in self:
            self[name] = default
        return dict.__getitem__(self, name)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for name, pv in dict(*args, **kwargs).items():
            self[name] = pv

    def __ior__(self, other: Any) -> PVIndex:
        self.update(other)
        return self

    def of_class(self, class_name: str) -> list[PersistentVolume]:
        """The class's PVs in name order (a new list)."""
        entry = self._by_class.get(class_name)
        return list(entry[1]) if entry is not None else []
