"""One run of a scenario to the end, headless, and what it says about each pod.

Everything comes from the engine's own event log (the same events a run page shows): how many
scheduling cycles a pod had, the FailedScheduling messages it got, the nodes tied at the top
score when it was placed, whether it preempted or was preempted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.featuregate.features import FeatureGates
from scheduler_core.questions.compare import RunRecord, record_run

MAX_UNITS = 50_000  # engine steps one headless run may take before it is cut short


@dataclass
class PodOutcome:
    """A pod at the end of one run, and the evidence of how it got there."""

    key: str
    status: str
    node: str | None
    message: str | None
    deleted_by: str | None
    attempts: int = 0  # scheduling cycles the pod had
    messages: list[str] = field(default_factory=list)  # its FailedScheduling messages, in order
    ties: list[str] = field(default_factory=list)  # nodes tied at the top score when it was placed
    hinted: bool = False  # placed through an opportunistic-batching hint
    preempted_others: bool = False  # it was a preemptor (nominated, victims deleted for it)
    popped_from_backoff: int = 0  # cycles that took it straight from backoffQ (PopFromBackoffQ)
    first_cycle: int | None = None  # the cycle that first scheduled it (ordering of differences)
    bound_at: float | None = None  # the virtual time of its (last) binding

    @property
    def retries(self) -> int:
        return max(0, self.attempts - 1)


@dataclass
class RunOutcome:
    version: str
    seed: int
    settled: bool
    clock: float
    cycles: int
    pods: dict[str, PodOutcome]
    preemptions: int  # victims deleted in the whole run
    record: RunRecord | None = None  # each pod's decisions (scheduler_core.questions.compare)
    gates: FeatureGates | None = None  # the gates the run had (version defaults and overrides)


def run_headless(yaml_text: str, seed: int, version: str, feature_gates: str = "") -> RunOutcome:
    """Run the scenario under `version` (with `feature_gates`, validated: FeatureGateError) until
    it settles (or MAX_UNITS steps, or the virtual clock's limit) and summarise every pod. Raises
    ScenarioError for a scenario that cannot run."""
    from scheduler_core.loader import load_scenario_text
    from scheduler_core.simulation import Simulation

    sim = Simulation(
        load_scenario_text(yaml_text, source="compare"), seed=seed, record_events=True, kubernetes_version=version,
        feature_gates=feature_gates or None,
    )
    result = ""
    for _ in range(MAX_UNITS):
        result = sim.step()
        if result in ("settled", "max-time"):
            break
    final = sim.result(result == "settled")
    pods = {
        f"{p['namespace']}/{p['name']}": PodOutcome(
            key=f"{p['namespace']}/{p['name']}",
            status=p["status"],
            node=p["node"],
            message=p["message"],
            deleted_by=p["deletedBy"],
        )
        for p in final["pods"]
    }
    preemptions = 0
    for event in sim.sink.events:
        preemptions += _apply_event(pods, event)
    return RunOutcome(
        version=final["kubernetesVersion"],
        seed=seed,
        settled=final["settled"],
        clock=final["clock"],
        cycles=final["cycles"],
        pods=pods,
        preemptions=preemptions,
        record=record_run(sim.sink.events),
        gates=sim.feature_gates,
    )


def _apply_event(pods: dict[str, PodOutcome], event: dict[str, Any]) -> int:
    """Fold one engine event into the pod it is about; 1 if it was a preemption victim's deletion."""
    kind = event.get("type")
    pod = pods.get(event.get("object") if kind == "k8s_event" else event.get("pod"))
    if kind == "victim_deleted":
        preemptor = pods.get(event.get("preemptor"))
        if preemptor is not None:
            preemptor.preempted_others = True
        return 1
    if pod is None:
        return 0
    if kind == "cycle_started":
        pod.attempts += 1
        if pod.first_cycle is None:
            pod.first_cycle = event.get("cycle")
    elif kind == "k8s_event" and event.get("reason") == "FailedScheduling":
        pod.messages.append(str(event.get("message") or ""))
    elif kind == "selected":
        pod.ties = list(event.get("ties") or [])
        pod.hinted = bool(event.get("hinted"))
    elif kind == "queue_move" and event.get("from") == "backoffQ" and event.get("to") == "none":
        pod.popped_from_backoff += event.get("reason") != "Delete"
    elif kind == "postfilter" and event.get("nominated_node"):
        # A preemptor: its PostFilter nominated a node. (Not the `nominated` event: v1.35 also
        # records the chosen node as nominated for pods that wait on device allocation.)
        pod.preempted_others = True
    elif kind == "bound":
        pod.bound_at = float(event.get("time") or 0.0)
    return 0
