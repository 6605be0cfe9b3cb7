"""Which DeviceClass serves an extended resource name (upstream deviceclass/extendedresourcecache,
the scheduler's DeviceClassResolver), for DRAExtendedResource.

Every class answers to its implicit name `deviceclass.resource.kubernetes.io/<class>`; a class
with `spec.extendedResourceName` also answers to that name. When several classes claim the same
explicit name, upstream keeps the one created last (equal creation times: the lower name). A
scenario creates its classes in document order, so the later document wins; implicit names are
unique by construction (validation keeps `kubernetes.io/` names out of `extendedResourceName`).

The mapping is rebuilt only when the cluster's class table changes (it never does during a run
today), so asking it for every pod costs a dictionary lookup.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.resource_types import RESOURCE_DEVICE_CLASS_PREFIX, DeviceClass
from scheduler_core.framework.types import is_extended_resource_name

__all__ = ["DeviceClassResolver", "is_dra_extended_resource_name"]


def is_dra_extended_resource_name(name: str) -> bool:
    """schedutil.IsDRAExtendedResourceName: an extended resource name, or an implicit one (the
    implicit prefix is under kubernetes.io/, so it is not "extended" by the core rule)."""
    return is_extended_resource_name(name) or name.startswith(RESOURCE_DEVICE_CLASS_PREFIX)


class DeviceClassResolver:
    """Extended resource name -> DeviceClass, built from a `{name: DeviceClass}` table."""

    __slots__ = ("_for", "_by_resource")

    def __init__(self) -> None:
        self._for: tuple[int, int] | None = None
        self._by_resource: dict[str, DeviceClass] = {}

    def refresh(self, classes: dict[str, DeviceClass]) -> DeviceClassResolver:
        """Follow `classes` (rebuilt when the table object or its size changed); returns self."""
        ident = (id(classes), len(classes))
        if ident != self._for:
            self._by_resource = build_mapping(classes.values())
            self._for = ident
        return self

    def get_device_class(self, resource_name: str) -> DeviceClass | None:
        """The class that serves `resource_name`, or None (upstream GetDeviceClass)."""
        return self._by_resource.get(resource_name)


def build_mapping(classes: Any) -> dict[str, DeviceClass]:
    """The resolver's table for classes given oldest first: each class's implicit name, and its
    explicit name unless a later class takes it over."""
    out: dict[str, DeviceClass] = {}
    for cls in classes:
        if cls.extended_resource_name is not None:
            out[cls.extended_resource_name] = cls
        out[RESOURCE_DEVICE_CLASS_PREFIX + cls.name] = cls
    return out
