"""Extenders wired into the scheduler: the configuration they change (ignoredByScheduler
resources), building them in upstream's order, and adding their scores to the plugins'.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.config.types import KubeSchedulerConfiguration
from scheduler_core.extender.client import MAX_EXTENDER_PRIORITY, ExtenderServices, HTTPExtender
from scheduler_core.extender.transcript import ExtenderError, ExtenderTranscript
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo

if TYPE_CHECKING:
    from random import Random

    from scheduler_core.framework.runtime.framework import NodePluginScores


class ScoringServices(Protocol):
    """What adding extender scores needs: the extenders and the run's seeded RNG."""

    extenders: list[Any]
    rng: Random


def effective_config(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """The configuration the frameworks are built from: resources an extender manages with
    ignoredByScheduler become NodeResourcesFit's ignoredResources in every profile (replacing
    what was configured), as upstream's buildExtenders does. Returns `config` itself when
    nothing changes."""
    ignored = [r["name"] for e in config.extenders for r in e.managed_resources if r.get("ignoredByScheduler")]
    if not ignored:
        return config
    cfg = copy.deepcopy(config)
    for prof in cfg.profiles:
        args = dict(prof.plugin_config.get("NodeResourcesFit") or {})
        args["ignoredResources"] = list(ignored)
        prof.plugin_config["NodeResourcesFit"] = args
    return cfg


def build_extenders(config: KubeSchedulerConfiguration, transcript: ExtenderTranscript,
                    services: ExtenderServices | None) -> list[HTTPExtender]:
    """The configured extenders in upstream's order: the ignorable ones after the others."""
    exts = [HTTPExtender(e, transcript, services) for e in config.extenders]
    return [e for e in exts if not e.ignorable] + [e for e in exts if e.ignorable]


def apply_extender_scores(sched: ScoringServices, pod: Pod, nodes: list[NodeInfo], scores: list[NodePluginScores],
                          columns: dict[str, Any] | None) -> None:
    """Add every interested extender's scaled scores to the nodes' totals (upstream
    prioritizeNodes): score x weight x (MaxNodeScore / MaxExtenderPriority), summed per node; a
    failing prioritize call only means no scores from that extender. Each node that got an
    extender entry (any interested extender, even one without a prioritize verb) draws its heap
    tie-break Randomizer from the run's seeded RNG, in node order."""
    factor = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
    index = {ni.name: i for i, ni in enumerate(nodes)} if columns is not None else {}
    per_node: dict[str, list[tuple[str, int]]] = {}
    for ext in sched.extenders:
        if not ext.is_interested(pod):
            continue
        try:
            plist, weight = ext.prioritize(pod, nodes)
        except ExtenderError:
            continue
        for host, score in plist:
            final = score * weight * factor
            per_node.setdefault(host, []).append((ext.name(), final))
            if columns is not None and ext.is_prioritizer():
                _add_extender_score(columns, index, ext.name(), host, score, final)
    if not per_node:
        return
    rng = sched.rng
    for s in scores:
        entry = per_node.get(s.name)
        if entry is None:
            continue
        s.scores.extend(entry)
        s.total_score += sum(v for _, v in entry)
        s.randomizer = rng.getrandbits(63)


def _add_extender_score(columns: dict[str, Any], index: dict[str, int], name: str, host: str, score: int,
                        final: int) -> None:
    """An extender's score for `host` as a column of the `scores` event (framework.score_columns):
    raw and weighted add up over the extender's calls, normalized is the last score (all three
    stored, as lists); nodes it did not score stay None."""
    if name not in columns["raw"]:
        n = len(columns["nodes"])
        columns["plugins"].append(name)
        columns["extenders"].append(name)
        for key in ("raw", "normalized", "weighted"):
            columns[key][name] = [None] * n
    i = index.get(host)
    if i is None:
        return  # a host that is not a candidate: the table has no row for it
    raw, weighted = columns["raw"][name], columns["weighted"][name]
    raw[i] = score + (raw[i] or 0)
    columns["normalized"][name][i] = score
    weighted[i] = final + (weighted[i] or 0)
