"""A cheaper `dataclasses.replace` for the engine's plain dataclasses on the per-pod hot path.

`dataclasses.replace(obj, **changes)` calls the class's generated `__init__` with every field
read back from `obj` (and checks each change against the fields): on `Pod`, a 28-field class,
that is most of what assuming and binding a pod costs outside the plugins. For a dataclass whose
fields are all plain `__init__` parameters with no `__post_init__` and no attributes beyond its
fields (Pod, QueuedPodInfo), copying the instance dictionary gives the same object: the same
field values (shared, as `replace` shares them) with the changes applied.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_CHECKED: dict[type, frozenset[str]] = {}


def _fields(cls: type) -> frozenset[str]:
    """The field names of a dataclass the copy is exact for (else a TypeError)."""
    names = _CHECKED.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        # Pseudo-fields (ClassVar, InitVar) are in __dataclass_fields__ but not in fields().
        if (hasattr(cls, "__post_init__") or hasattr(cls, "__slots__")
                or len(cls.__dataclass_fields__) != len(fields)  # type: ignore[attr-defined]
                or any(not f.init for f in fields)):
            raise TypeError(f"replace_fields: {cls.__name__} needs dataclasses.replace")
        names = frozenset(f.name for f in fields)
        _CHECKED[cls] = names
    return names


def replace_fields(obj: T, **changes: Any) -> T:
    """`dataclasses.replace(obj, **changes)` for plain dataclasses (see the module docstring)."""
    cls = type(obj)
    names = _fields(cls)
    for k in changes:
        if k not in names:
            raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {k!r}")
    src = obj.__dict__  # type: ignore[attr-defined]
    if len(src) != len(names):  # attributes beyond the fields: replace() would drop them
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new = object.__new__(cls)
    d = new.__dict__
    d.update(src)
    d.update(changes)
    return new
