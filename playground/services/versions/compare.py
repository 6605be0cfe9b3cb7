"""The "compare versions" page's data: one scenario and seed under v1.35 and v1.30, pod by pod.

Computed by a worker (services.versions.queued, tasks/compare.py), never in the web request:
both runs of a scenario at the cap (MAX_PODS pods, MAX_NODES nodes) take seconds of CPU.
Scenarios above the cap are refused with a clear message (a run page can still show them under
either version). The result is stored by (scenario text, seed[, version, gates]), since a
comparison is a pure function of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.services.versions.attribution import GATE_LABELS, RUN_FEATURE_GATES, Cause, message_causes
from playground.services.versions.headless import PodOutcome, RunOutcome, run_headless
from scheduler_core.featuregate.features import _FIELD_OF_GATE
from scheduler_core.questions import compare as engine_compare

# Bumped whenever Comparison changes shape: a cached comparison of an older shape is not reused.
CACHE_SHAPE = 2

MAX_PODS = 500
MAX_NODES = 300
VERSIONS = ("v1.35", "v1.30")  # (the default, the older release): the page's two columns
CACHE_SECONDS = 3600
TIES_SHOWN = 5  # tied nodes named in a cause


class CompareError(Exception):
    """The scenario cannot be compared (too large, or it does not load); `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Difference:
    """One aspect of one pod that differs: "placement", "binding time", "message" or "retries"."""

    aspect: str
    new: str
    old: str


@dataclass
class PodComparison:
    key: str
    new: PodOutcome
    old: PodOutcome
    differences: list[Difference] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    decision: engine_compare.PodDifference | None = None  # its first differing decision


@dataclass
class Comparison:
    seed: int
    versions: tuple[str, str]
    runs: tuple[RunOutcome, RunOutcome]
    pods: list[PodComparison]  # every pod, in the scenario's order
    gates: list[dict[str, Any]]  # every gate: name, label, what it does, value per version
    feature_gates: str = ""  # "gates on vs off": the gates on in the first column (same version)
    decisions: list[engine_compare.PodDifference] = field(default_factory=list)  # earliest first

    @property
    def first(self) -> engine_compare.PodDifference | None:
        """The first decision that differs (cycle, pod, plugin, node, virtual time), or None."""
        return self.decisions[0] if self.decisions else None

    @property
    def differing(self) -> list[PodComparison]:
        return [p for p in self.pods if p.differences]

    @property
    def gates_seen(self) -> list[str]:
        """The gates named as a cause somewhere, in GATE_LABELS order."""
        seen = {c.gate for p in self.pods for c in p.causes}
        return [g for g in GATE_LABELS if g in seen]


def _size_check(yaml_text: str) -> None:
    from scheduler_core.loader import load_scenario_text

    scenario = load_scenario_text(yaml_text, source="compare")
    if len(scenario.pods) > MAX_PODS or len(scenario.nodes) > MAX_NODES:
        raise CompareError(
            f"This scenario has {len(scenario.pods)} pods and {len(scenario.nodes)} nodes; comparing versions "
            f"runs it twice, so it is limited to {MAX_PODS} pods and {MAX_NODES} nodes. "
            "Start a run under each version instead."
        )


def compare_versions(yaml_text: str, seed: int) -> Comparison:
    """Run the scenario under both versions and compare every pod (seconds: a worker's work)."""
    from scheduler_core.api.errors import ScenarioError

    try:
        _size_check(yaml_text)
        new, old = (run_headless(yaml_text, seed, v) for v in VERSIONS)
    except ScenarioError as error:
        raise CompareError(f"This scenario cannot run: {error}") from None
    return build_comparison(new, old)


def canonical_gates(feature_gates: str, version: str = VERSIONS[0]) -> str:
    """`feature_gates` as `version` reads them, canonical ("A=true,B=false", sorted), without
    the ones equal to its defaults; CompareError for gates it refuses (upstream's words) or none
    left. Cheap: the request checks them before anything is queued."""
    from scheduler_core.featuregate import FeatureGateError, format_gates, parse_feature_gates

    try:
        gates = format_gates(parse_feature_gates(feature_gates, version).items())
    except FeatureGateError as error:
        raise CompareError(f"Feature gates: {error}.") from None
    if not gates:
        raise CompareError("Feature gates: give at least one gate that differs from the defaults.")
    return gates


def compare_gates(yaml_text: str, seed: int, feature_gates: str, version: str = VERSIONS[0]) -> Comparison:
    """The scenario under `version` with `feature_gates` on, against the same version with its
    defaults ("gates on vs off"). CompareError for gates the version refuses (upstream's words)
    or a scenario that cannot run."""
    from scheduler_core.api.errors import ScenarioError

    gates = canonical_gates(feature_gates, version)
    try:
        _size_check(yaml_text)
        on, off = run_headless(yaml_text, seed, version, gates), run_headless(yaml_text, seed, version)
    except ScenarioError as error:
        raise CompareError(f"This scenario cannot run: {error}") from None
    labels = (f"{version} + {gates}", f"{version}, default gates")
    comparison = build_comparison(on, off, labels)
    comparison.feature_gates = gates
    for row in comparison.differing:
        # Both columns model the same release: the gates are the cause when the decisions
        # named nothing narrower (a plugin one side runs, a behaviour the gates switch).
        if not row.causes:
            row.causes.append(Cause(RUN_FEATURE_GATES, f"{gates} on in the first column only"))
    return comparison


def build_comparison(new: RunOutcome, old: RunOutcome, labels: tuple[str, str] | None = None) -> Comparison:
    from scheduler_core.featuregate.features import gates_for

    labels = labels or (new.version, old.version)
    gates = (new.gates or gates_for(new.version), old.gates or gates_for(old.version))
    decisions = (
        engine_compare.compare_runs(new.record, old.record, gates, labels)
        if new.record is not None and old.record is not None else []
    )
    by_pod = {d.pod: d for d in decisions}
    pods = [_compare_pod(key, pod, old.pods.get(key), gates, new, old) for key, pod in new.pods.items()]
    pods = [p for p in pods if p is not None]
    for row in pods:
        _attribute_decision(row, by_pod.get(row.key))
    _attribute_knock_on(pods)
    return Comparison(
        seed=new.seed,
        versions=labels,
        decisions=decisions,
        runs=(new, old),
        pods=pods,
        gates=[
            {"name": g, "label": label, "what": what, "new": getattr(gates[0], g), "old": getattr(gates[1], g)}
            for g, (label, what) in GATE_LABELS.items()
        ],
    )


def _where(p: PodOutcome) -> str:
    if p.status == "Bound":
        return f"bound to {p.node}"
    if p.status == "Deleted":
        return f"deleted ({p.deleted_by})" if p.deleted_by else "deleted"
    return "pending"


def _compare_pod(
    key: str, a: PodOutcome, b: PodOutcome | None, gates: Any, run_a: RunOutcome, run_b: RunOutcome
) -> PodComparison | None:
    if b is None:  # created by an action in one run only: not comparable pod by pod
        return None
    row = PodComparison(key=key, new=a, old=b)
    add = row.causes.append
    if _where(a) != _where(b):
        row.differences.append(Difference("placement", _where(a), _where(b)))
        tied = a.ties if len(a.ties) > 1 else b.ties if len(b.ties) > 1 else []
        if len(tied) > 1 and a.status == b.status == "Bound":
            named = ", ".join(tied[:TIES_SHOWN]) + (
                f" and {len(tied) - TIES_SHOWN} more" if len(tied) > TIES_SHOWN else ""
            )
            add(Cause("node_score_heap_tie_break", f"{len(tied)} nodes had the same top score ({named})"))
        if a.hinted != b.hinted:
            add(Cause("opportunistic_batching", "one version placed it through the previous pod's score hint"))
        if a.preempted_others or b.preempted_others or "Preemption" in {a.deleted_by, b.deleted_by}:
            add(Cause("scheduler_async_preemption", "it preempted, or was preempted, in at least one version"))
    if a.status == b.status == "Bound" and a.node == b.node and a.bound_at != b.bound_at:
        # The same node at another virtual time is a difference: a gang held at Permit, a
        # retry after backoff.
        row.differences.append(Difference("binding time", _at(a.bound_at), _at(b.bound_at)))
    if (a.message or "") != (b.message or ""):
        row.differences.append(Difference("message", a.message or "—", b.message or "—"))
        for cause in message_causes(a.message, b.message, gates):
            if cause not in row.causes:
                add(cause)
    if a.retries != b.retries:
        row.differences.append(Difference("retries", str(a.retries), str(b.retries)))
        add(Cause("scheduler_queueing_hints", "requeueing decides when a rejected pod is tried again"))
        if run_a.preemptions or run_b.preemptions:
            add(Cause("scheduler_async_preemption", "victims' deletions reach the queue at another time"))
        if a.popped_from_backoff or b.popped_from_backoff:
            add(Cause("scheduler_pop_from_backoff_q", "an idle scheduler pops a backing-off pod only in v1.35"))
    return row


def _at(seconds: float | None) -> str:
    return engine_compare.format_time(seconds)


_GATE_FIELD = {**_FIELD_OF_GATE}


def _attribute_decision(row: PodComparison, decision: engine_compare.PodDifference | None) -> None:
    """Put the causes of the pod's first differing decision (read from both runs' events) before
    the causes its final outcome suggests; a decision difference the final outcome hides (a
    binding moved in time, a detour through another node) makes the row differ too."""
    row.decision = decision
    if decision is None:
        return
    if not row.differences:
        row.differences.append(Difference(
            "decision", decision.a.describe() if decision.a else "no such cycle",
            decision.b.describe() if decision.b else "no such cycle"))
    first: list[Cause] = []
    for c in decision.causes:
        if c.kind == "gate":
            first.append(Cause(_GATE_FIELD.get(c.name, c.name), c.why))
        elif c.kind == "plugin":
            gate = _GATE_FIELD.get(c.gates[0], c.gates[0]) if c.gates else ""
            first.append(Cause(gate, c.why, title=f"{c.name} plugin"))
        elif c.kind == "earlier":
            first.append(Cause("", c.why, title="knock-on effect"))
        elif c.kind == "action":
            first.append(Cause("", c.why, title=f"{c.name} action"))
        elif c.kind == "gates":
            first.append(Cause(RUN_FEATURE_GATES, c.why))
    # A gate the decision already names is not named twice, and a knock-on guess is dropped
    # when the decision names a cause of its own.
    named = {c.gate for c in first if c.gate}
    rest = [c for c in row.causes if c not in first and c.gate not in named and not (c.gate == "" and first)]
    row.causes = first + rest


def _attribute_knock_on(pods: list[PodComparison]) -> None:
    """A placement difference with no cause of its own follows from an earlier pod that was placed
    differently: it found another cluster. Name the earliest such pod (by scheduling cycle)."""
    explained = [p for p in pods if p.causes and any(d.aspect == "placement" for d in p.differences)]
    for row in pods:
        if row.causes or not row.differences:
            continue
        mine = row.new.first_cycle or 0
        earlier = [p for p in explained if (p.new.first_cycle or 0) < mine] or [p for p in explained if p is not row]
        if earlier:
            first = min(earlier, key=lambda p: p.new.first_cycle or 0)
            gates = ", ".join(c.label for c in first.causes)
            row.causes.append(Cause("", f"follows from {first.key} being placed differently ({gates})"))
        else:
            row.causes.append(Cause("", "the pods around it were scheduled in another order"))
