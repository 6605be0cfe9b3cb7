"""Generic preemption (upstream pkg/scheduler/framework/preemption): the Evaluator that
PostFilter plugins such as DefaultPreemption drive."""

from scheduler_core.framework.preemption.preemption import (
    Candidate,
    Evaluator,
    PreemptionInterface,
    Victims,
    fit_error_message,
    get_earliest_pod_start_time,
    get_pod_start_time,
    more_important_pod,
    pick_one_node_for_preemption,
)

__all__ = [
    "Candidate",
    "Evaluator",
    "PreemptionInterface",
    "Victims",
    "fit_error_message",
    "get_earliest_pod_start_time",
    "get_pod_start_time",
    "more_important_pod",
    "pick_one_node_for_preemption",
]
