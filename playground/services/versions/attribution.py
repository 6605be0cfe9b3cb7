"""Which modelled behaviour (a gate of scheduler_core.featuregate.features) explains a difference.

Nothing here knows a scenario. A FailedScheduling message is taken apart into its parts (the
Filter reasons, the DynamicResources fragment, the preemption summary) and each part that differs
is matched to the gate whose behaviour produces exactly that difference; placements and retry
counts are matched through the engine's evidence (top-score ties, preemption, requeueing).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from scheduler_core.featuregate.features import FeatureGates

# Short names and what each gate changes, for the page; a test checks they cover FeatureGates.
GATE_LABELS: dict[str, tuple[str, str]] = {
    "scheduler_queueing_hints": (
        "queueing hints",
        "v1.35 asks each plugin's hint whether an event can help a rejected pod, and replays events "
        "that arrived while the pod was in flight; v1.30 requeues on any registered event",
    ),
    "scheduler_async_preemption": (
        "asynchronous preemption",
        "v1.35 deletes victims outside the scheduling cycle (the next cycles still see them); "
        "v1.30 deletes them inside the preemptor's cycle",
    ),
    "scheduler_pop_from_backoff_q": (
        "pop from backoffQ",
        "v1.35 pops a backing-off pod when activeQ is empty; v1.30 waits for its backoff to end",
    ),
    "dynamic_resource_allocation": (
        "DRA plugin and message fragment",
        "v1.35's default profile has DynamicResources, whose PostFilter adds "
        '"no new claims to deallocate" to every FailedScheduling message',
    ),
    "opportunistic_batching": (
        "opportunistic batching",
        "v1.35 may place a pod like the previous identical one on the node its scores hinted",
    ),
    "taint_toleration_single_reason": (
        "taint wording",
        'v1.35 says "node(s) had untolerated taint(s)"; v1.30 names each node\'s first '
        "untolerated taint ({key: value})",
    ),
    "insufficient_resource_unresolvable": (
        "unresolvable insufficient resources",
        "in v1.35 a request above a node's whole allocatable is unresolvable, so preemption calls "
        'that node "not helpful" instead of trying victims there',
    ),
    "prefilter_result_reasons": (
        "PreFilterResult reasons",
        'v1.35 gives nodes excluded by a PreFilterResult a "didn\'t satisfy plugin(s)" reason '
        "and preemption skips them; v1.30 only counts them in the total",
    ),
    "node_score_heap_tie_break": (
        "random tie-break",
        "among nodes with the same top score v1.30 picks at random (the run's seeded RNG); "
        "v1.35 takes the first pop of the score heap",
    ),
    "volume_binding_eligible_nodes": (
        "bound local PV narrowing",
        "v1.30's VolumeBinding PreFilter narrows the nodes to the hostname a bound local PV's node "
        "affinity names (a PreFilterResult); v1.35 filters each node instead",
    ),
}

DRA_FRAGMENT = "no new claims to deallocate"
_TAINT_NAMED = re.compile(r"node\(s\) had untolerated taint \{.*?\}")
_TAINT_SINGLE = "node(s) had untolerated taint(s)"
PREFILTER_REASON = "didn't satisfy plugin(s)"
_COUNTED = re.compile(r"^(\d+) (.+)$")


@dataclass(frozen=True)
class Cause:
    """A gate and why it explains this difference (`gate` is "" for "follows from another")."""

    gate: str
    why: str
    title: str = ""  # a label of its own (a plugin on one side only, an earlier difference)

    @property
    def label(self) -> str:
        if self.title:
            return self.title
        if self.gate == RUN_FEATURE_GATES:
            return "feature gates"
        return GATE_LABELS.get(self.gate, ("", ""))[0] or "knock-on effect"


# The cause of "gates on vs off" differences (compare_gates): the run's --feature-gates settings.
RUN_FEATURE_GATES = "feature_gates"


@dataclass(frozen=True)
class ParsedMessage:
    filter_reasons: Counter[str]
    has_dra: bool
    preemption: str  # the preemption summary as written ("" when none)
    preemption_reasons: Counter[str]


def _counted(text: str) -> Counter[str]:
    """ "2 Insufficient cpu, 1 node(s) were unschedulable" -> {reason: count}."""
    out: Counter[str] = Counter()
    for part in re.split(r", (?=\d+ )", text.strip().rstrip(".")):
        m = _COUNTED.match(part.strip())
        if m:
            out[m.group(2)] += int(m.group(1))
        elif part.strip():
            out[part.strip()] += 1
    return out


def parse_message(message: str) -> ParsedMessage:
    """Split a FailedScheduling message into its parts (missing parts are empty)."""
    rest = message or ""
    preemption = ""
    if "preemption: " in rest:
        rest, preemption = rest.split("preemption: ", 1)
    has_dra = DRA_FRAGMENT in rest
    rest = rest.replace(DRA_FRAGMENT + ",", "").replace(DRA_FRAGMENT, "")
    filter_text = rest.split("nodes are available: ", 1)[1] if "nodes are available: " in rest else rest
    filter_text = filter_text.split(". ", 1)[0]
    preemption_text = preemption.split("nodes are available: ", 1)[1] if "nodes are available: " in preemption else ""
    return ParsedMessage(_counted(filter_text), has_dra, preemption.strip(), _counted(preemption_text))


def _normalised_taints(reasons: Counter[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for reason, count in reasons.items():
        out[_TAINT_SINGLE if _TAINT_NAMED.fullmatch(reason) else reason] += count
    return out


def message_causes(new: str | None, old: str | None, gates: tuple[FeatureGates, FeatureGates]) -> list[Cause]:
    """Why two FailedScheduling messages of the same pod differ (`new` under gates[0], `old`
    under gates[1]); only gates that really differ between the two versions are named."""
    differs = {g for g in GATE_LABELS if getattr(gates[0], g) != getattr(gates[1], g)}
    a, b = parse_message(new or ""), parse_message(old or "")
    causes: list[Cause] = []

    def add(gate: str, why: str) -> None:
        if gate in differs and all(c.gate != gate for c in causes):
            causes.append(Cause(gate, why))

    if a.has_dra != b.has_dra:
        add("dynamic_resource_allocation", f'only one message has "{DRA_FRAGMENT}"')
    fa, fb = _normalised_taints(a.filter_reasons), _normalised_taints(b.filter_reasons)
    if fa == fb and a.filter_reasons != b.filter_reasons:
        add("taint_toleration_single_reason", "the same nodes are rejected for taints, in other words")
    elif fa != fb:
        if fa != a.filter_reasons or fb != b.filter_reasons:
            add("taint_toleration_single_reason", "the taint reasons are worded differently")
        if (PREFILTER_REASON in " ".join(fa)) != (PREFILTER_REASON in " ".join(fb)):
            add("prefilter_result_reasons", f'only one message gives excluded nodes "{PREFILTER_REASON}"')
        elif any(r.startswith("Insufficient ") for r in (fa | fb)):
            add("insufficient_resource_unresolvable", "the nodes short of resources are counted differently")
    if a.preemption_reasons != b.preemption_reasons or (a.preemption == "") != (b.preemption == ""):
        reasons = " ".join(a.filter_reasons | b.filter_reasons)
        if PREFILTER_REASON in reasons:
            add("prefilter_result_reasons", "preemption dry-runs the nodes a PreFilterResult excluded only in v1.30")
        if "Insufficient " in reasons:
            add(
                "insufficient_resource_unresolvable",
                'preemption judges the nodes short of resources differently ("not helpful" or tried for victims)',
            )
    return causes
