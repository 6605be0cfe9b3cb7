"""RemovePodsViolatingInterPodAntiAffinity's args: their types and upstream's validation (what they do: plugins/ of the same name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import argsreader as ar
from ..plugins.common_args import PodSelection, parse_selection

NAME = "RemovePodsViolatingInterPodAntiAffinity"
ARG_FIELDS = ("namespaces", "labelSelector")


@dataclass(frozen=True)
class RemovePodsViolatingInterPodAntiAffinityArgs:
    selection: PodSelection


def parse_args(value: Any, path: str, err: ar.Err) -> RemovePodsViolatingInterPodAntiAffinityArgs:
    m = ar.mapping(value, path, err, ARG_FIELDS)
    return RemovePodsViolatingInterPodAntiAffinityArgs(selection=parse_selection(m, path, err))
