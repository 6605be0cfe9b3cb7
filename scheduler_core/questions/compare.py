"""Where two runs of one scenario part ways, and what made them part.

Versions, feature gates and forks are compared the same way. Each run's engine event stream is
folded into each pod's decisions, one per scheduling cycle (the node chosen, or the plugins that
rejected nodes; a Permit wait; when and where it bound; its deletion). The nth decision of a pod
on one side is set against its nth decision on the other, and the earliest pair that differs, by
virtual time and then cycle, is the first difference. A pod bound to the same node at another
virtual time differs: the final placements alone hide a gang held at Permit for two minutes.

Each difference is attributed from the two runs' own data, never from what a lesson is about:
1. a plugin that took part in the decision and that only one side's profile enables (named with
   the gate that enables it, found by asking the default profile of each side's gates);
2. a gate that differs and whose behaviour left evidence in the decision (tied top scores, a
   score hint, preemption victims, a pop from backoffQ, a retry at another time);
3. a cluster action one run applied and the other did not (a fork);
4. for a later difference, the first difference it follows from;
5. the gates that differ, when nothing narrower is left.
Pure: no Django, no I/O; the web's comparison page shows what this returns.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.events.compact import PASSING_CODES, iter_verdicts, prefilter_results, score_table
from scheduler_core.featuregate.features import FeatureGates

__all__ = [
    "Cause",
    "Decision",
    "PodDifference",
    "RunRecord",
    "compare_runs",
    "differing_gates",
    "first_difference",
    "format_time",
    "record_run",
]


# Filter verdicts that reject nothing: passed, skipped, or not run because an earlier plugin
# already rejected the node.
_NOT_REJECTING = PASSING_CODES | {"NotEvaluated"}


def format_time(seconds: float | None) -> str:
    """Virtual time as the pages write it: "t=0 s", "t=120 s", "t=1.5 s"."""
    if seconds is None:
        return "never"
    text = f"{seconds:.2f}".rstrip("0").rstrip(".")
    return f"t={text} s"


@dataclass
class Decision:
    """One scheduling cycle of one pod (attempt 0: what happened to a pod that had no cycle, such
    as a pod bound in the scenario and later deleted) and what came of it."""

    pod: str
    attempt: int
    cycle: int | None
    time: float
    node: str | None = None  # the node the cycle chose
    rejected_by: set[str] = field(default_factory=set)  # PreFilter/Filter plugins that rejected nodes
    scored_by: set[str] = field(default_factory=set)  # Score plugins that told the nodes apart
    waited: str = ""  # the plugin that held the pod at Permit
    failed: str = ""  # "Reserve (VolumeBinding)": an extension point that failed after the choice
    nominated: str = ""  # the node a PostFilter (preemption) nominated
    nominated_by: str = ""
    ties: int = 0  # nodes tied at the top score
    hinted: bool = False  # placed through an opportunistic-batching hint
    from_backoff: bool = False  # popped straight from backoffQ
    bound_at: float | None = None
    bound_node: str | None = None
    deleted_at: float | None = None
    deleted_by: str = ""

    @property
    def plugins(self) -> set[str]:
        """Every plugin that took part in what this decision became."""
        out = self.rejected_by | self.scored_by
        out.update(p for p in (self.waited, self.nominated_by, self.failed.partition("(")[2].rstrip(")")) if p)
        return out

    def describe(self) -> str:
        """The decision in one line, e.g. "held at Permit by GangScheduling, bound to node-1 at t=120 s"."""
        parts: list[str] = []
        if self.waited:
            parts.append(f"held at Permit by {self.waited} on {self.node}")
        if self.failed:
            parts.append(f"failed at {self.failed} on {self.node}")
        if self.bound_at is not None:
            parts.append(f"bound to {self.bound_node} at {format_time(self.bound_at)}")
        elif self.node and not self.failed and not self.waited:
            parts.append(f"chose {self.node}, not bound")
        if self.node is None and self.attempt:
            why = f" (rejected by {', '.join(sorted(self.rejected_by))})" if self.rejected_by else ""
            parts.append(f"unschedulable{why}")
        if self.nominated:
            parts.append(f"nominated to {self.nominated} by {self.nominated_by}")
        if self.deleted_at is not None:
            parts.append(f"deleted at {format_time(self.deleted_at)}" + (f" ({self.deleted_by})" if self.deleted_by else ""))
        return ", ".join(parts) or "no decision"


@dataclass
class RunRecord:
    """One run as the comparison needs it: each pod's decisions, each profile's plugins, the
    cluster actions applied and how many preemption victims were deleted."""

    decisions: dict[str, list[Decision]]
    profiles: dict[str, set[str]]
    actions: list[tuple[float, str, str]]  # (virtual time, action, its parameters as text)
    victims: int = 0

    @property
    def plugins(self) -> set[str]:
        return set().union(*self.profiles.values()) if self.profiles else set()


def _profile_plugins(profile: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for names in profile.values():
        if isinstance(names, list):
            out.update(str(n) for n in names)
    return out


def _distinguishing_scores(event: dict[str, Any]) -> set[str]:
    """The Score plugins whose scores were not the same for every scored node. A compact event
    (schema 3) stores a column that is one value for every node as that value: such a plugin
    told no nodes apart, read without expanding the table."""
    if "raw" in event:
        out: set[str] = set()
        for plugin in event.get("plugins") or []:
            column = (event.get("weighted") or {}).get(plugin)
            if column is None:
                column = (event.get("normalized") or {}).get(plugin, event["raw"].get(plugin))
            if isinstance(column, list) and len(set(map(repr, column))) > 1:
                out.add(plugin)
        return out
    table = score_table(event)  # schema 1
    return {plugin for plugin in table.plugins
            if len({repr((table.cells.get(plugin, {}).get(n) or {}).get("weighted")) for n in table.nodes}) > 1}


def _verdict_rows(event: dict[str, Any]) -> list[dict[str, Any]]:
    """The distinct verdict rows of a `filter_verdicts` event (one per outcome, not per node: a
    5,000-node cycle has a handful)."""
    if "outcome" in event:
        return [event["verdicts"][i] for i in dict.fromkeys(event["outcome"])]
    return [row for _, row in iter_verdicts(event)]


def record_run(events: list[dict[str, Any]]) -> RunRecord:
    """Fold one run's engine events (in sequence order) into its RunRecord."""
    record = RunRecord(decisions={}, profiles={}, actions=[])
    current: dict[str, Decision] = {}
    backoff_pop: set[str] = set()

    def latest(pod: str, time: float) -> Decision:
        if pod not in current:  # a pod with no cycle: bound in the scenario, or never tried
            current[pod] = Decision(pod=pod, attempt=0, cycle=None, time=time)
            record.decisions.setdefault(pod, []).append(current[pod])
        return current[pod]

    for event in events:
        kind = event.get("type")
        time = float(event.get("time") or 0.0)
        pod = str(event.get("pod") or "")
        if kind == "run_started":
            record.profiles = {name: _profile_plugins(p) for name, p in (event.get("profiles") or {}).items()}
        elif kind == "cluster_action":
            params = event.get("params") or {}
            text = ", ".join(f"{k}={params[k]}" for k in sorted(params)) if isinstance(params, dict) else str(params)
            record.actions.append((time, str(event.get("action") or ""), text))
        elif kind == "queue_move":
            if event.get("from") == "backoffQ" and event.get("to") == "none" and event.get("reason") != "Delete":
                backoff_pop.add(pod)
        elif kind == "cycle_started":
            attempts = record.decisions.setdefault(pod, [])
            d = Decision(pod=pod, attempt=sum(1 for x in attempts if x.attempt) + 1,
                         cycle=event.get("cycle"), time=time, from_backoff=pod in backoff_pop)
            backoff_pop.discard(pod)
            attempts.append(d)
            current[pod] = d
        elif kind == "prefilter" and pod in current:
            current[pod].rejected_by.update(
                str(r.get("plugin")) for r in prefilter_results([event])
                if r.get("code") not in PASSING_CODES and r.get("plugin"))
        elif kind == "filter_verdicts" and pod in current:
            for row in _verdict_rows(event):
                current[pod].rejected_by.update(p for p, v in row.items()
                                                if p != "_" and (v or {}).get("code") not in _NOT_REJECTING)
        elif kind == "scores" and pod in current:
            current[pod].scored_by |= _distinguishing_scores(event)
        elif kind == "selected" and pod in current:
            d = current[pod]
            d.node, d.ties, d.hinted = event.get("node"), len(event.get("ties") or []), bool(event.get("hinted"))
        elif kind == "permit_wait" and pod in current:
            current[pod].waited = str(event.get("plugin") or "")
        elif kind == "extension_point" and pod in current and event.get("code") not in ("Success", "Skip", "Wait"):
            plugin = event.get("plugin") or ""
            current[pod].failed = f"{event.get('point')}" + (f" ({plugin})" if plugin else "")
        elif kind == "postfilter" and pod in current and event.get("nominated_node"):
            current[pod].nominated = str(event["nominated_node"])
            current[pod].nominated_by = str(event.get("plugin") or "")
        elif kind == "bound" and pod:
            d = latest(pod, time)
            d.bound_at, d.bound_node = time, event.get("node")
        elif kind == "victim_deleted":
            record.victims += 1
            d = latest(pod, time)
            d.deleted_at, d.deleted_by = time, f"preempted by {event.get('preemptor')}"
        elif kind == "pod_deleted" and pod:
            d = latest(pod, time)
            if d.deleted_at is None:
                d.deleted_at, d.deleted_by = time, str(event.get("by") or "")
    return record


@dataclass(frozen=True)
class Cause:
    """What produced a difference. `kind`: "plugin" (on one side only), "gate" (a differing gate
    whose behaviour shows in the decision), "action" (a cluster action on one side only),
    "earlier" (it follows from the first difference), "gates" (the differing gates, no narrower
    evidence) or "order" (nothing differs in the setup: the pods met another cluster)."""

    kind: str
    name: str
    why: str
    gates: tuple[str, ...] = ()  # for a plugin: the differing gates that enable it


@dataclass
class PodDifference:
    """A pod's first decision that differs between the runs (`a` or `b` is None when that side
    has no such decision), what differs, and why."""

    pod: str
    attempt: int
    a: Decision | None
    b: Decision | None
    aspects: list[str]
    causes: list[Cause] = field(default_factory=list)

    @property
    def time(self) -> float:
        return min(d.time for d in (self.a, self.b) if d is not None)

    @property
    def when(self) -> str:
        """The virtual time the pod's decisions parted, as the pages write it."""
        return format_time(self.time)

    @property
    def cycle(self) -> int | None:
        cycles = [d.cycle for d in (self.a, self.b) if d is not None and d.cycle is not None]
        return min(cycles) if cycles else None

    @property
    def node(self) -> str | None:
        for d in (self.a, self.b):
            if d is not None and (d.bound_node or d.node):
                return d.bound_node or d.node
        return None

    @property
    def plugin(self) -> str:
        """The plugin the first cause names, else "" (the page's "plugin" column)."""
        for c in self.causes:
            if c.kind == "plugin":
                return c.name
        return ""

    @property
    def summary(self) -> str:
        """One sentence naming the pod, node and both virtual times when the binding moved."""
        a, b = self.a, self.b
        if (a is not None and b is not None and a.bound_at is not None and b.bound_at is not None
                and a.bound_node == b.bound_node and a.bound_at != b.bound_at):
            return (f"{self.pod} is bound to {a.bound_node} at {format_time(a.bound_at)} against "
                    f"{format_time(b.bound_at)}")
        return (f"{self.pod}: {a.describe() if a else 'no such cycle'} against "
                f"{b.describe() if b else 'no such cycle'}")


def _aspects(a: Decision | None, b: Decision | None) -> list[str]:
    if a is None or b is None:
        return ["cycle on one side only"]
    out: list[str] = []
    if (a.bound_node or a.node) != (b.bound_node or b.node):
        out.append("node")
    if a.bound_at != b.bound_at:
        out.append("binding time")
    if a.waited != b.waited or a.failed != b.failed or a.nominated != b.nominated:
        out.append("outcome")
    if a.node is None and b.node is None and a.rejected_by != b.rejected_by:
        out.append("rejecting plugins")
    if a.deleted_at != b.deleted_at or a.deleted_by != b.deleted_by:
        out.append("deletion")
    return out


def _upstream_names() -> dict[str, str]:
    from scheduler_core.featuregate.features import _FIELD_OF_GATE

    return {f: g for g, f in _FIELD_OF_GATE.items()}


def differing_gates(a: FeatureGates, b: FeatureGates) -> list[tuple[str, bool, bool]]:
    """(gate, value in a, value in b) for every modelled behaviour and --feature-gates setting
    that differs; upstream names where there is one, else the behaviour's field name."""
    names = _upstream_names()
    out: list[tuple[str, bool, bool]] = []
    for f in dataclasses.fields(FeatureGates):
        if f.name in ("version", "overrides"):
            continue
        va, vb = getattr(a, f.name), getattr(b, f.name)
        if va != vb:
            out.append((names.get(f.name, f.name), bool(va), bool(vb)))
    seen = {g for g, _, _ in out}
    for gate in sorted(set(dict(a.overrides)) | set(dict(b.overrides))):
        if gate not in seen and a.enabled(gate) != b.enabled(gate):
            out.append((gate, a.enabled(gate), b.enabled(gate)))
    return out


def _with_gate(gates: FeatureGates, gate: str, value: bool) -> FeatureGates:
    """`gates` with one gate set to `value` (a field, or an upstream --feature-gates setting)."""
    field_of = {g: f for f, g in _upstream_names().items()}
    changes: dict[str, Any] = {}
    name = field_of.get(gate, gate)
    if name in {f.name for f in dataclasses.fields(FeatureGates)}:
        changes[name] = value
    if gate[:1].isupper():
        changes["overrides"] = tuple(sorted({**dict(gates.overrides), gate: value}.items()))
    return dataclasses.replace(gates, **changes)


def _default_plugin_names(gates: FeatureGates) -> set[str]:
    from scheduler_core.config.defaults import default_plugins

    return {p.name for s in default_plugins(gates).sets.values() for p in s.enabled}


def _enabling_gates(plugin: str, on: FeatureGates, off: FeatureGates) -> list[str]:
    """The differing gates that, set alone as `on` has them, add `plugin` to `off`'s default profile."""
    if plugin in _default_plugin_names(off):
        return []
    return [gate for gate, v_on, _ in differing_gates(on, off)
            if plugin in _default_plugin_names(_with_gate(off, gate, v_on))]


def _plugin_causes(diff: PodDifference, a: RunRecord, b: RunRecord, gates: tuple[FeatureGates, FeatureGates],
                   labels: tuple[str, str]) -> list[Cause]:
    involved: set[str] = set()
    for d in (diff.a, diff.b):
        if d is not None:
            involved |= d.plugins
    out: list[Cause] = []
    for plugin in sorted(involved):
        in_a, in_b = plugin in a.plugins, plugin in b.plugins
        if in_a == in_b:
            continue
        side, other = (0, 1) if in_a else (1, 0)
        enabling = _enabling_gates(plugin, gates[side], gates[other])
        by = f" (feature gate {', '.join(enabling)}: on in {labels[side]}, off in {labels[other]})" if enabling else ""
        out.append(Cause("plugin", plugin, f"{plugin} runs only in {labels[side]}{by}", tuple(enabling)))
    return out


def _gate_causes(diff: PodDifference, a: RunRecord, b: RunRecord, gates: tuple[FeatureGates, FeatureGates]) -> list[Cause]:
    differs = {g for g, _, _ in differing_gates(*gates)}
    names = _upstream_names()
    decisions = [d for d in (diff.a, diff.b) if d is not None]
    out: list[Cause] = []

    def add(field_name: str, why: str) -> None:
        gate = names.get(field_name, field_name)
        if gate in differs:
            out.append(Cause("gate", gate, why))

    if "node" in diff.aspects and any(d.ties > 1 for d in decisions):
        add("node_score_heap_tie_break", f"{max(d.ties for d in decisions)} nodes tied at the top score; "
            "the versions break ties differently")
    if any(d.hinted for d in decisions):
        add("opportunistic_batching", "one side placed the pod on the node the previous pod's scores hinted")
    if (a.victims or b.victims) and any(d.nominated or d.deleted_by.startswith("preempted") for d in decisions):
        add("scheduler_async_preemption", f"preemption deleted victims ({a.victims} against {b.victims}); "
            "when they leave decides what the next cycles see")
    if any(d.from_backoff for d in decisions):
        add("scheduler_pop_from_backoff_q", "the cycle took the pod straight from backoffQ")
    if diff.attempt > 1 and ("cycle on one side only" in diff.aspects or (diff.a and diff.b and diff.a.time != diff.b.time)):
        add("scheduler_queueing_hints", "the pod was retried at another time; queueing decides when")
    return out


def _action_causes(diff: PodDifference, a: RunRecord, b: RunRecord, labels: tuple[str, str]) -> list[Cause]:
    only_a = [x for x in a.actions if x not in b.actions and x[0] <= diff.time]
    only_b = [x for x in b.actions if x not in a.actions and x[0] <= diff.time]
    return [Cause("action", action, f"{action} ({params}) at {format_time(t)} in {label} only")
            for (t, action, params), label in [*((x, labels[0]) for x in only_a), *((x, labels[1]) for x in only_b)]]


def compare_runs(a: RunRecord, b: RunRecord, gates: tuple[FeatureGates, FeatureGates],
                 labels: tuple[str, str] = ("the first run", "the second run")) -> list[PodDifference]:
    """Each pod's first differing decision, earliest first (virtual time, cycle, pod), each with
    its causes. Empty when the runs decide everything alike, at the same virtual times."""
    out: list[PodDifference] = []
    for pod in [*a.decisions, *(p for p in b.decisions if p not in a.decisions)]:
        da, db = a.decisions.get(pod, []), b.decisions.get(pod, [])
        for i in range(max(len(da), len(db))):
            x, y = (da[i] if i < len(da) else None), (db[i] if i < len(db) else None)
            aspects = _aspects(x, y)
            if aspects:
                out.append(PodDifference(pod, (x or y).attempt if (x or y) else 0, x, y, aspects))  # type: ignore[union-attr]
                break
    out.sort(key=lambda d: (d.time, d.cycle if d.cycle is not None else -1, d.pod))
    for i, diff in enumerate(out):
        diff.causes = (_plugin_causes(diff, a, b, gates, labels) + _gate_causes(diff, a, b, gates)
                       + _action_causes(diff, a, b, labels))
        if diff.causes:
            continue
        if i > 0:
            first = out[0]
            where = f"cycle {first.cycle}" if first.cycle is not None else format_time(first.time)
            diff.causes.append(Cause("earlier", first.pod, f"follows from the first difference ({first.pod}, {where})"))
        elif gates_differ := differing_gates(*gates):
            named = ", ".join(f"{g}={'on' if va else 'off'}" for g, va, _ in gates_differ)
            diff.causes.append(Cause("gates", named, f"the gates that differ ({named} in {labels[0]}); "
                                     "no single plugin or behaviour left evidence in this decision"))
        else:
            diff.causes.append(Cause("order", "", "same plugins, gates and actions: the pods met another cluster"))
    return out


def first_difference(a: RunRecord, b: RunRecord, gates: tuple[FeatureGates, FeatureGates],
                     labels: tuple[str, str] = ("the first run", "the second run")) -> PodDifference | None:
    """The earliest decision that differs, or None when the runs are the same decision for decision."""
    diffs = compare_runs(a, b, gates, labels)
    return diffs[0] if diffs else None
