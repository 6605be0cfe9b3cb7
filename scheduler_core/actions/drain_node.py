"""drainNode: what `kubectl drain <node>` does, on the virtual clock.

kubectl drains on the client side (k8s.io/kubectl/pkg/drain), and so does this action:

1. Cordon the node ("node/<n> cordoned", or "already cordoned").
2. List the node's pods (in the API's order, namespace then name) and sort them out as kubectl's
   filters do: mirror pods are skipped (the kubelet owns them; the API cannot delete them);
   DaemonSet-managed pods stop the drain unless `ignoreDaemonSets` (then they are left where they
   are: their controller ignores cordons); pods with an emptyDir volume need
   `deleteEmptyDirData`, pods no controller would re-create need `force` (finished pods,
   Succeeded or Failed, need neither). Any pod refused that way ends the drain before anything
   is evicted: "error: unable to drain node ... continuing command...", the node left cordoned.
   Pods already terminating are not evicted again.
3. Evict each remaining pod through the eviction subresource (`evict_pod` of the simulated API
   server, the one the descheduler uses), which refuses while the pod's PodDisruptionBudget allows
   no disruption (429 TooManyRequests). A refused eviction is retried every 5 s of virtual time,
   as kubectl retries it, each pod on its own; an accepted one is done once the pod is gone
   ("pod/<name> evicted"); its controller creates the replacement at once, which the scheduler
   places elsewhere (the node is cordoned). When every pod is done: "node/<n> drained".
4. `timeout` (seconds) bounds the whole drain, as kubectl's --timeout does. kubectl's default
   is 0, waiting for ever, which a simulation cannot: a drain a PodDisruptionBudget blocks would
   keep the run awake every 5 s and never let it settle. The default here is DEFAULT_TIMEOUT
   (300 s); a retry due past it ends that pod's eviction with "global timeout reached".

Each line kubectl prints is a `drain` event (node, line, level info|warning|error) with kubectl's
words, which the run page's evictions panel lists. The drain's progress lives in the simulation
(`sim.drains`, checkpointed with it) and is due on the virtual clock (`next_wakeup`, `run_due`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scheduler_core.actions.names import Ref
from scheduler_core.actions.spec import NodeActionSpec, ParseContext
from scheduler_core.api.errors import ScenarioError
from scheduler_core.controllers.timers import Controller

__all__ = ["DrainNode", "SPEC", "DEFAULT_TIMEOUT", "RETRY_AFTER", "next_wakeup", "run_due"]

ACTION = "drainNode"
EVENT = "drain"
DEFAULT_TIMEOUT = 300.0  # seconds; kubectl's own default (0) waits for ever
MAX_TIMEOUT = 86_400.0
RETRY_AFTER = 5.0  # kubectl sleeps this long after a 429 before evicting the pod again
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
PDB_REFUSAL = "Cannot evict pod as it would violate the pod's disruption budget."
# Replacement pods' creation indexes count from here: past the descheduler's (2,000,000).
REPLACEMENT_INDEX = 3_000_000


@dataclass
class PodEviction:
    """One pod's eviction loop (kubectl runs one goroutine per pod)."""

    key: str
    retry_at: float | None = None  # a refused eviction's next attempt
    accepted: bool = False  # the eviction was accepted: waiting for the pod to be gone


@dataclass
class Drain:
    """A drain in progress."""

    node: str
    deadline: float
    timeout: float
    pods: list[PodEviction] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class DrainNode(NodeActionSpec):
    name = ACTION
    fields = ("node", "ignoreDaemonSets", "deleteEmptyDirData", "force", "timeout")

    def parse(self, ctx: ParseContext, m: dict[str, Any]) -> dict[str, Any]:
        params = self.parse_node(ctx, m)
        for flag in ("ignoreDaemonSets", "deleteEmptyDirData", "force"):
            params[flag] = ctx.r.boolean(m.get(flag), f"{ctx.path}.{flag}")
        timeout = DEFAULT_TIMEOUT
        if m.get("timeout") is not None:
            timeout = ctx.r.number(m.get("timeout"), f"{ctx.path}.timeout")
            if not 0 < timeout <= MAX_TIMEOUT:
                raise ctx.err("timeout", f"Invalid value: {timeout:g}: must be more than 0 and at most "
                                         f"{MAX_TIMEOUT:g} seconds (kubectl's 0, for ever, would never let the run settle)")
        params["timeout"] = timeout
        return params

    def refs(self, params: dict[str, Any]) -> tuple[Ref, ...]:
        return (Ref("Node", params["node"], "node"),)

    def apply(self, sim: Any, params: dict[str, Any]) -> None:
        s = sim.scheduler
        node_name = params["node"]
        if s.cluster.nodes[node_name].unschedulable:
            _say(sim, node_name, f"node/{node_name} already cordoned")
        else:
            sim.apiserver.set_unschedulable(node_name, True)
            _say(sim, node_name, f"node/{node_name} cordoned")
        to_evict, warnings, errors = _pods_for_deletion(sim, node_name, params)
        if errors:
            _fail(sim, node_name, errors)
            return
        if warnings:
            _say(sim, node_name, "Warning: " + "; ".join(warnings), "warning")
        now = sim.clock.now()
        drain = Drain(node_name, now + params["timeout"], params["timeout"],
                      [PodEviction(key) for key in to_evict])
        sim.drains.append(drain)
        for pe in list(drain.pods):
            _attempt(sim, drain, pe)
        _settle(sim, drain)


SPEC = DrainNode()


def next_wakeup(sim: Any) -> float | None:
    """The next instant a drain has something to do (a retry, or its deadline while it waits for
    an accepted eviction's pod to go), None when no drain is in progress."""
    times: list[float] = []
    for drain in sim.drains:
        for pe in drain.pods:
            if pe.retry_at is not None:
                times.append(pe.retry_at)
            elif pe.accepted:
                times.append(drain.deadline)
    return min(times, default=None)


class Drains(Controller):
    """The drains in progress, as one of the run's controllers (controllers/timers.py): kubectl's
    retries and timeouts on the virtual clock. The state stays on the simulation (`sim.drains`),
    where the action puts it."""

    name = "kubectl-drain"

    @classmethod
    def for_run(cls, api: Any) -> Drains:
        return cls()

    def next_wakeup(self, sim: Any) -> float | None:
        return next_wakeup(sim)

    def run_due(self, sim: Any, now: float) -> bool:
        """Its evictions and words are in the stream; the run does not report settling anew."""
        run_due(sim)
        return False


def run_due(sim: Any) -> None:
    """Advance every drain to the current instant: pods gone are reported evicted, due retries
    are tried again (or time out), finished drains end."""
    drains = sim.drains
    if not drains:
        return
    now = sim.clock.now()
    for drain in list(drains):
        for pe in list(drain.pods):
            if pe.accepted:
                if pe.key not in sim.scheduler.cluster.pods:
                    _evicted(sim, drain, pe)
                elif now >= drain.deadline:
                    drain.pods.remove(pe)
                    drain.errors.append(f'error when waiting for pod "{_name(pe.key)}" terminating: '
                                        f"global timeout reached: {_go_duration(drain.timeout)}")
            elif pe.retry_at is not None and pe.retry_at <= now:
                _attempt(sim, drain, pe)
        _settle(sim, drain)


def _attempt(sim: Any, drain: Drain, pe: PodEviction) -> None:
    """One pass of kubectl's per-pod loop: say so, give up past the deadline, else evict."""
    ns, name = pe.key.split("/", 1)
    _say(sim, drain.node, f"evicting pod {pe.key}")
    pe.retry_at = None
    now = sim.clock.now()
    if now >= drain.deadline:
        drain.pods.remove(pe)
        drain.errors.append(f'error when evicting pods/"{name}" -n "{ns}": global timeout reached: '
                            f"{_go_duration(drain.timeout)}")
        return
    pod = sim.scheduler.cluster.pods.get(pe.key)
    if pod is None:  # 404: gone already, nothing to wait for
        drain.pods.remove(pe)
        return
    refusal = sim.apiserver.evict_pod(pe.key)
    if refusal is None:
        pe.accepted = True
        sim.mark_changed()
        _replace(sim, pod)
        if pe.key not in sim.scheduler.cluster.pods:
            _evicted(sim, drain, pe)
        return
    if refusal == PDB_REFUSAL:  # 429 TooManyRequests: kubectl waits and tries again
        _say(sim, drain.node, f'error when evicting pods/"{name}" -n "{ns}" (will retry after 5s): {refusal}', "error")
        pe.retry_at = now + RETRY_AFTER
        return
    drain.pods.remove(pe)  # any other answer ends this pod's loop
    drain.errors.append(f'error when evicting pods/"{name}" -n "{ns}": {refusal}')


def _evicted(sim: Any, drain: Drain, pe: PodEviction) -> None:
    drain.pods.remove(pe)
    _say(sim, drain.node, f"pod/{_name(pe.key)} evicted")


def _settle(sim: Any, drain: Drain) -> None:
    """A drain whose every pod is done ends: drained, or the errors kubectl collected."""
    if drain.pods:
        return
    sim.drains.remove(drain)
    if drain.errors:
        _fail(sim, drain.node, drain.errors)
    else:
        _say(sim, drain.node, f"node/{drain.node} drained")


def _fail(sim: Any, node: str, errors: list[str]) -> None:
    error = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    _say(sim, node, f'error: unable to drain node "{node}" due to error: {error}, continuing command...', "error")
    _say(sim, node, f"There are pending nodes to be drained: {node}", "error")


def _pods_for_deletion(sim: Any, node: str, params: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """kubectl's filters over the node's pods: (pods to evict, warnings, errors), the warnings and
    errors grouped by kind with the pods they name."""
    from scheduler_core.controllers.workloads.replace import controller_of

    cluster = sim.scheduler.cluster
    groups: dict[tuple[str, str], list[str]] = {}
    to_evict: list[str] = []
    for key in sorted(k for k, p in cluster.pods.items() if p.node_name == node):
        pod = cluster.pods[key]
        if pod.deletion_timestamp is not None:
            continue  # terminating already
        owner = controller_of(pod)
        if owner is not None and owner.kind == "DaemonSet":
            if params["ignoreDaemonSets"]:
                groups.setdefault(("warning", "ignoring DaemonSet-managed Pods"), []).append(key)
            else:
                groups.setdefault(("error", "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets "
                                            "to ignore)"), []).append(key)
            continue
        if MIRROR_ANNOTATION in pod.annotations:
            continue  # the kubelet's own: the API cannot delete it
        finished = pod.phase in ("Succeeded", "Failed")
        ok = True
        if not finished and any(v.source == "emptyDir" for v in pod.volumes):
            if params["deleteEmptyDirData"]:
                groups.setdefault(("warning", "deleting Pods with local storage"), []).append(key)
            else:
                groups.setdefault(("error", "cannot delete Pods with local storage (use --delete-emptydir-data "
                                            "to override)"), []).append(key)
                ok = False
        if not finished and owner is None:
            if params["force"]:
                groups.setdefault(("warning", "deleting Pods that declare no controller"), []).append(key)
            else:
                groups.setdefault(("error", "cannot delete Pods that declare no controller (use --force to "
                                            "override)"), []).append(key)
                ok = False
        if ok:
            to_evict.append(key)
    warnings = [f"{what}: {', '.join(keys)}" for (level, what), keys in groups.items() if level == "warning"]
    errors = [f"{what}: {', '.join(keys)}" for (level, what), keys in groups.items() if level == "error"]
    return to_evict, warnings, errors


def _replace(sim: Any, pod: Any) -> None:
    """The evicted pod's controller creates its replacement now (as after the descheduler's
    evictions: controllers.workloads.replace)."""
    from scheduler_core.controllers.workloads.replace import create_replacement

    cluster = sim.scheduler.cluster
    try:
        create_replacement(sim, pod, lambda ns: {k.partition("/")[2] for k in cluster.records
                                                 if k.startswith(ns + "/")},
                           origin="drain", index_base=REPLACEMENT_INDEX)
    except ScenarioError:  # a template the loader accepted once always loads again
        return


def _say(sim: Any, node: str, line: str, level: str = "info") -> None:
    sim.sink.emit(EVENT, node=node, line=line, level=level)


def _name(key: str) -> str:
    return key.partition("/")[2]


def _go_duration(seconds: float) -> str:
    """A duration as Go prints it (kubectl's --timeout in its messages): 300 -> "5m0s"."""
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    frac = seconds - whole
    sec = f"{s + frac:g}s"
    if h:
        return f"{h}h{m}m{sec}"
    if m:
        return f"{m}m{sec}"
    return sec
