"""Why a pod fits nowhere: the per-node statuses of one attempt and the FailedScheduling
message built from them (upstream framework/types.go: Diagnosis, FitError).

They live in the framework because the filter walks (plain and fast) fill a `Diagnosis`, and
PostFilter plugins read it; the scheduling cycle only raises and reports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler_core.api.types import Pod
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.status import Code, Status

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


@dataclass
class Diagnosis:
    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    node_hint: str = ""  # opportunistic batching's hinted node
    signature: tuple | None = None  # the pod's batching signature

    def add_plugin_status(self, st: Status) -> None:
        if not st.plugin:
            return
        if st.is_rejected():
            self.unschedulable_plugins.add(st.plugin)
        if st.code == Code.PENDING:
            self.pending_plugins.add(st.plugin)


class FitError(Exception):
    """No node fits: carries the diagnosis FailedScheduling's message is built from."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def message(self) -> str:
        """"0/N nodes are available: <sorted counted reasons>. <PostFilter message>"."""
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            # Per distinct Status, then per reason: nodes rejected alike often share one Status.
            for st, n in d.node_to_status.status_counts().items():
                for r in st.reasons:
                    counts[r] = counts.get(r, 0) + n
            n_explicit = len(d.node_to_status)
            if n_explicit < self.num_all_nodes:
                for r in d.node_to_status.absent_nodes_status.reasons:
                    counts[r] = counts.get(r, 0) + self.num_all_nodes - n_explicit
            parts = sorted(f"{v} {k}" for k, v in counts.items())
            if parts:
                msg += " " + ", ".join(parts) + "."
        if d.post_filter_msg:
            msg += " " + d.post_filter_msg
        return msg

    __str__ = message


class SchedulingError(Exception):
    """A non-FitError failure (plugin Error status, no nodes)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


def fit_status(fit: FitError, code: Code = Code.UNSCHEDULABLE) -> Status:
    """The status a FitError fails the cycle with: its message, the error as its cause."""
    s = Status(code, fit.message())
    s.cause = fit
    return s
