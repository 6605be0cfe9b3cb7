"""Opportunistic batching (upstream framework/runtime/batch.go, OpportunisticBatching: beta and
on by default in v1.35).

When consecutive pods are interchangeable for every Filter and Score plugin (same "signature")
and the node chosen for the previous one is now full for this one, upstream skips the full walk:
it hints the next-best node from the previous cycle's sorted scores and, if that node passes the
filters, takes it without scoring. This changes placements in large clusters (no fresh walk from
the rotating start index), so a faithful engine must do the same.

Signatures: each plugin that runs at PreFilter/Filter/PreScore/Score contributes fragments with
its own `sign_pod` (upstream SignPlugin.SignPod), or declares the pod unsignable
(helper/signing.Unsignable); a plugin without `sign_pod` disables batching for the profile. With
the default profile PodTopologySpread's system-default constraints make every pod unsignable, so
batching only shows with configurations that change that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import Pod
from scheduler_core.framework.plugins.helper.signing import Unsignable
from scheduler_core.util.goheap import heap_pop

if TYPE_CHECKING:
    from scheduler_core.framework.cycle_state import CycleState
    from scheduler_core.framework.runtime.framework import Framework, NodePluginScores

MAX_BATCH_AGE = 0.5  # seconds (virtual here)


def batchable_plugins(fwk: Framework) -> list[Any] | None:
    """The plugins that sign pods, or None when some plugin cannot (or extenders exist)."""
    if fwk.extenders:
        return None
    seen: dict[str, Any] = {}
    for pl in (*fwk.pre_filter_plugins, *fwk.filter_plugins, *fwk.pre_score_plugins, *fwk.score_plugins):
        if pl.name in seen:
            continue
        if not callable(getattr(pl, "sign_pod", None)):
            return None
        seen[pl.name] = pl
    return list(seen.values())


def sign_pod(fwk: Framework, plugins: list[Any] | None, pod: Pod,
             batch: OpportunisticBatch | None = None) -> tuple | None:
    """The pod's signature, or None when it cannot be compared with other pods.

    With `batch`, the plugin that found the previous pod unsignable is asked first: one plugin
    refusing is enough for None, and under the default profile the same plugin
    (PodTopologySpread, with its system-default constraints) refuses every pod, after the
    plugins before it have each built their fragments. The answer is the same either way."""
    if plugins is None:
        return None
    suspect = batch.unsignable_by if batch is not None else None
    if suspect is not None:
        try:
            suspect.sign_pod(pod)
        except Unsignable:
            return None
    sig: dict[str, Any] = {"schedulerName": pod.scheduler_name}
    for pl in plugins:
        try:
            sig.update(pl.sign_pod(pod))
        except Unsignable:
            if batch is not None:
                batch.unsignable_by = pl
            return None
    return tuple(sorted(sig.items()))


class OpportunisticBatch:
    """Per-profile batching state: the previous cycle's remaining sorted nodes."""

    # The plugin that last refused to sign a pod (sign_pod asks it first). A class attribute,
    # so batches restored from checkpoints made before it existed read None.
    unsignable_by: Any = None

    def __init__(self) -> None:
        self.signature: tuple | None = None
        self.sorted_nodes: list[NodePluginScores] | None = None  # a Go heap, best first
        self.created: float = 0.0
        self.last_cycle = -1
        self.last_chosen = ""
        self.batched_pods = 0

    def _empty(self) -> bool:
        return not self.sorted_nodes

    def get_node_hint(self, fwk: Framework, state: CycleState, pod: Pod, cycle: int,
                      signature: tuple | None, now: float,
                      less: Callable[[Any, Any], bool]) -> str:
        """The next-best node of the previous batch, if this pod can reuse it ("" if not)."""
        if self._empty() or cycle != self.last_cycle + 1:
            return ""
        if signature is None or signature != self.signature:
            return ""
        if now > self.created + MAX_BATCH_AGE:
            return ""
        last = fwk.snapshot.get(self.last_chosen)
        if last is None:
            return ""
        st = fwk.run_filter_plugins(state, pod, last)
        if st is None or not st.is_rejected():
            return ""  # the last chosen node still fits: scoring may prefer it again
        assert self.sorted_nodes is not None
        return heap_pop(self.sorted_nodes, less).name

    def store_schedule_results(self, signature: tuple | None, hinted: str, chosen: str,
                               others: list[NodePluginScores] | None, cycle: int, now: float) -> None:
        self.last_cycle = cycle
        self.last_chosen = chosen
        if hinted and hinted == chosen:
            self.batched_pods += 1
            return
        if signature is not None and others:
            self.signature = signature
            self.sorted_nodes = others
            self.created = now
        else:
            self.signature = None
            self.sorted_nodes = None
