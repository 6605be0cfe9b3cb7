"""RemoveDuplicates's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from ..plugins.common_args import PodSelection, parse_selection

NAME = "RemoveDuplicates"
ARG_FIELDS = ("namespaces", "excludeOwnerKinds")


@dataclass(frozen=True)
class RemoveDuplicatesArgs:
    selection: PodSelection
    exclude_owner_kinds: tuple[str, ...] = ()


def parse_args(value: Any, path: str, err: ar.Err) -> RemoveDuplicatesArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    return RemoveDuplicatesArgs(selection=parse_selection(m, path, err, label_selector=False),
                                exclude_owner_kinds=ar.names(m.get("excludeOwnerKinds"),
                                                             f"{path}.excludeOwnerKinds", err))
