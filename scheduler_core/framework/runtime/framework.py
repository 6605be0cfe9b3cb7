"""The framework runtime: one profile's plugins wired into every extension point
(upstream framework/runtime/framework.go).

`Framework` builds each extension point's plugin list from the profile (default plugins merged
with the user's, multiPoint expanded exactly as upstream does), and runs them in upstream's
order with upstream's rules: Skip results remove a plugin from the rest of the cycle, the first
rejecting Filter stops the node's evaluation, scores are normalised then weighted, and so on.
It is also the Handle plugins receive; scheduler-wide services (snapshot, cluster objects,
nominator, clock, RNG, extenders, event stream, binding and victim deletion) are given to it as
`FrameworkOptions` (runtime/options.py), as upstream's runtime options are: the framework never
imports the scheduler.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

from scheduler_core.api.types import Pod
from scheduler_core.backend.cache.node_arrays import NODE_ROWS_KEY, NodeRows
from scheduler_core.config.defaults import merged_plugins
from scheduler_core.config.types import EXTENSION_POINTS, PluginSet, Profile
from scheduler_core.featuregate.features import DEFAULT_GATES, FeatureGates
from scheduler_core.framework import interface as fi
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.runtime import filter_chunk as fc
from scheduler_core.framework.runtime import score_record
from scheduler_core.framework.runtime.filter_chunk import FilterChunk
from scheduler_core.framework.runtime.filter_record import FEASIBLE_NAMES_KEY
from scheduler_core.framework.runtime.score_list import ScoreList
from scheduler_core.framework.runtime.totals import weighted_totals
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.framework.types import NodeInfo, NodeScore, PodInfo, PreFilterResult, QueuedPodInfo

# Status.is_rejected's codes.
_REJECTED_CODES = frozenset((Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING))

if TYPE_CHECKING:
    from random import Random

    from scheduler_core.apiserver.store.cluster import ClusterState
    from scheduler_core.backend.cache.snapshot import Snapshot
    from scheduler_core.framework.runtime.options import FrameworkOptions, PodNominator

_POINT_TYPES: dict[str, type] = {
    "preEnqueue": fi.PreEnqueuePlugin,
    "queueSort": fi.QueueSortPlugin,
    "preFilter": fi.PreFilterPlugin,
    "filter": fi.FilterPlugin,
    "postFilter": fi.PostFilterPlugin,
    "preScore": fi.PreScorePlugin,
    "score": fi.ScorePlugin,
    "reserve": fi.ReservePlugin,
    "permit": fi.PermitPlugin,
    "preBind": fi.PreBindPlugin,
    "bind": fi.BindPlugin,
    "postBind": fi.PostBindPlugin,
}


class FrameworkError(ValueError):
    """A profile that upstream would refuse to start with."""


class NodePluginScores:
    """One node's weighted score per plugin and total (upstream fwk.NodePluginScores)."""

    __slots__ = ("name", "scores", "total_score", "randomizer")

    def __init__(self, name: str, scores: list[tuple[str, int]], total_score: int) -> None:
        self.name = name
        self.scores = scores
        self.total_score = total_score
        self.randomizer = 0


class Framework:
    """A profile's plugin pipeline and the plugins' Handle."""

    def __init__(self, profile: Profile, registry: dict[str, type],
                 options: FrameworkOptions | None = None,
                 feature_gates: FeatureGates = DEFAULT_GATES) -> None:
        """Build the profile's plugins. `options` may come later (`set_options`): a restored
        checkpoint rebuilds the frameworks before the scheduler they serve exists."""
        self.options: FrameworkOptions = options  # type: ignore[assignment]
        self.pod_nominator: PodNominator | None = None
        # The modelled version's gates; plugins read them through their handle (gates_of).
        self.feature_gates = feature_gates
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        plugins = merged_plugins(profile.plugins, feature_gates)
        configs = profile.plugin_config

        # Instantiate every plugin named anywhere, in registry-independent but stable order.
        needed: list[str] = []
        for point in ("multiPoint", *EXTENSION_POINTS):
            for ref in plugins.get(point).enabled:
                if ref.name not in needed:
                    needed.append(ref.name)
        self.plugins_map: dict[str, fi.Plugin] = {}
        for name in needed:
            cls = registry.get(name)
            if cls is None:
                raise FrameworkError(f"profile {self.profile_name!r}: plugin {name!r} does not exist")
            try:
                plugin = self.plugins_map[name] = cls(configs.get(name), self)
            except fi.PluginArgsError:
                raise
            except Exception as e:  # plugin constructors validate their args
                raise FrameworkError(f"profile {self.profile_name!r}: initializing plugin {name!r}: {e}") from e
            if getattr(plugin, "name", None) != name:  # an out-of-tree factory's plugin
                if not isinstance(plugin, fi.Plugin):
                    raise FrameworkError(f"profile {self.profile_name!r}: initializing plugin {name!r}: "
                                         f"its factory returned {type(plugin).__name__}, not a Plugin")
                if plugin.name:
                    raise FrameworkError(f"profile {self.profile_name!r}: initializing plugin {name!r}: "
                                         f"its factory built a plugin named {plugin.name!r}")
                plugin.name = name

        self.points: dict[str, list[fi.Plugin]] = {p: [] for p in EXTENSION_POINTS}
        for point in EXTENSION_POINTS:
            self.points[point] = self._update_plugin_list(point, plugins.get(point))
        multi = plugins.get("multiPoint")
        if multi.enabled:
            for point in EXTENSION_POINTS:
                self.points[point] = self._expand_multi_point(point, plugins.get(point), multi)

        if len(self.points["queueSort"]) != 1:
            raise FrameworkError(
                f"only one queue sort plugin required for profile with scheduler name "
                f"{self.profile_name!r}, but got {len(self.points['queueSort'])}")
        if not self.points["bind"]:
            raise FrameworkError(
                f"at least one bind plugin is needed for profile with scheduler name {self.profile_name!r}")

        self.score_weights: dict[str, int] = {}
        total_priority = 0
        for ref in [*plugins.get("score").enabled, *multi.enabled]:
            pl = self.plugins_map.get(ref.name)
            if not isinstance(pl, fi.ScorePlugin) or ref.name in self.score_weights:
                continue
            weight = self.score_weights[ref.name] = ref.weight or 1
            # getScoreWeights: the weighted total of every node must fit an int64.
            if weight * fi.MAX_NODE_SCORE > fi.MAX_TOTAL_SCORE - total_priority:
                raise FrameworkError("total score of Score plugins could overflow")
            total_priority += weight * fi.MAX_NODE_SCORE
        for pl in self.points["score"]:
            if self.score_weights.get(pl.name, 0) == 0:
                raise FrameworkError(f"score plugin \"{pl.name}\" is not configured with weight")

        self.pre_enqueue_plugins: list[fi.PreEnqueuePlugin] = self.points["preEnqueue"]  # type: ignore
        self.queue_sort: fi.QueueSortPlugin = self.points["queueSort"][0]  # type: ignore
        self.pre_filter_plugins: list[fi.PreFilterPlugin] = self.points["preFilter"]  # type: ignore
        self.filter_plugins: list[fi.FilterPlugin] = self.points["filter"]  # type: ignore
        self.post_filter_plugins: list[fi.PostFilterPlugin] = self.points["postFilter"]  # type: ignore
        self.pre_score_plugins: list[fi.PreScorePlugin] = self.points["preScore"]  # type: ignore
        self.score_plugins: list[fi.ScorePlugin] = self.points["score"]  # type: ignore
        self.reserve_plugins: list[fi.ReservePlugin] = self.points["reserve"]  # type: ignore
        self.permit_plugins: list[fi.PermitPlugin] = self.points["permit"]  # type: ignore
        self.pre_bind_plugins: list[fi.PreBindPlugin] = self.points["preBind"]  # type: ignore
        self.bind_plugins: list[fi.BindPlugin] = self.points["bind"]  # type: ignore
        self.post_bind_plugins: list[fi.PostBindPlugin] = self.points["postBind"]  # type: ignore

    # ---- construction helpers -----------------------------------------------------------
    def _update_plugin_list(self, point: str, pset: PluginSet) -> list[fi.Plugin]:
        out: list[fi.Plugin] = []
        seen: set[str] = set()
        for ref in pset.enabled:
            pl = self.plugins_map[ref.name]
            if not isinstance(pl, _POINT_TYPES[point]):
                raise FrameworkError(f"plugin {ref.name!r} does not extend {point} plugin")
            if ref.name in seen:
                raise FrameworkError(f"plugin {ref.name!r} already registered as {point!r}")
            seen.add(ref.name)
            out.append(pl)
        return out

    def _expand_multi_point(self, point: str, pset: PluginSet, multi: PluginSet) -> list[fi.Plugin]:
        """upstream expandMultiPointPlugins: explicitly configured plugins that are also in
        multiPoint go first (in their explicit order), then multiPoint ones, then the rest."""
        enabled = [r.name for r in pset.enabled]
        disabled = {r.name for r in pset.disabled}
        if "*" in disabled:
            return self.points[point]
        multi_enabled: list[str] = []
        overrides: list[str] = []
        for ref in multi.enabled:
            pl = self.plugins_map[ref.name]
            if not isinstance(pl, _POINT_TYPES[point]) or ref.name in disabled:
                continue
            if ref.name in enabled:
                if ref.name not in overrides:
                    overrides.append(ref.name)
                continue
            if ref.name in multi_enabled:
                raise FrameworkError(f"plugin {ref.name!r} already registered as {point!r}")
            multi_enabled.append(ref.name)
        names = [n for n in enabled if n in overrides]
        names += multi_enabled
        names += [n for n in enabled if n not in overrides]
        return [self.plugins_map[n] for n in names]

    # ---- services given by the runner (upstream's runtime options) ------------------------
    def set_options(self, options: FrameworkOptions) -> None:
        self.options = options

    def set_pod_nominator(self, nominator: PodNominator) -> None:
        """Upstream SetPodNominator: the queue, built after the frameworks, is the nominator."""
        self.pod_nominator = nominator

    # ---- Handle (what plugins may use) ---------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        return self.options.snapshot_shared_lister

    @property
    def cluster(self) -> ClusterState:
        return self.options.cluster

    @property
    def rng(self) -> Random:
        return self.options.rng

    @property
    def extenders(self) -> list[Any]:
        return self.options.extenders

    @property
    def events_enabled(self) -> bool:
        return self.options.event_recorder.enabled

    @property
    def scheduling_cycle(self) -> int:
        return self.options.current_cycle()

    def emit(self, type_: str, **fields: Any) -> None:
        self.options.event_recorder.emit(type_, **fields)

    def now(self) -> float:
        return self.options.clock.now()

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        assert self.pod_nominator is not None, "the framework runs without a pod nominator"
        return self.pod_nominator.nominated_pods_for_node(node_name)

    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None:
        return self.options.pod_actions.preempt_victim(victim, preemptor, node_name)

    def clear_nominated_node_name(self, pod: Pod) -> None:
        self.options.pod_actions.set_nominated_node_name(pod, "")

    def bind(self, pod: Pod, node_name: str) -> Status | None:
        return self.options.pod_actions.bind_pod(pod, node_name)

    @property
    def workload_manager(self) -> Any:
        """upstream Handle.WorkloadManager (None unless GenericWorkload is on)."""
        return getattr(self.options, "workload_manager", None)

    def activate_pods(self, pods: list[Pod]) -> None:
        """upstream Handle.Activate: move these pods to activeQ (or mark them if in flight)."""
        if pods:
            self.options.pod_actions.activate_pods(pods)

    def allow_waiting_pod(self, pod_key: str, plugin: str) -> None:
        """upstream GetWaitingPod(uid).Allow(plugin); nothing when the pod does not wait."""
        self.options.pod_actions.allow_waiting_pod(pod_key, plugin)

    # ---- queries ---------------------------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.queue_sort.less(a, b)

    def enqueue_extensions(self) -> list[tuple[str, list[fi.ClusterEventWithHint] | None]]:
        """(plugin name, its events_to_register() or None) for every plugin at a point that can
        reject a pod (PreEnqueue, PreFilter, Filter, Reserve, Permit); None for plugins without
        EnqueueExtensions, which upstream registers for every event."""
        out: list[tuple[str, list[fi.ClusterEventWithHint] | None]] = []
        for name, pl in self.plugins_map.items():
            if not isinstance(pl, (fi.PreEnqueuePlugin, fi.PreFilterPlugin, fi.FilterPlugin,
                                   fi.ReservePlugin, fi.PermitPlugin)):
                continue
            out.append((name, pl.events_to_register() if isinstance(pl, fi.EnqueueExtensions) else None))
        return out

    # ---- PreFilter / Filter -------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        nodes = self.snapshot.list()
        skip: set[str] = set()
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status: Status | None = None
        results: list[dict[str, Any]] | None = [] if self.events_enabled else None
        try:
            for pl in self.pre_filter_plugins:
                r, s = pl.pre_filter(state, pod, nodes)
                if results is not None:
                    results.append({"plugin": pl.name, "code": (s.code.label if s else "Success"),
                                    "reasons": (s.reasons if s else []),
                                    "node_names": (sorted(r.node_names) if r is not None and r.node_names is not None
                                                   else None)})
                if s is not None and s.code == Code.SKIP:
                    skip.add(pl.name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    s.plugin = pl.name
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, s, set()
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    return None, Status.error(f"running PreFilter plugin \"{pl.name}\": {s.message()}",
                                              plugin=pl.name), set()
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.add(pl.name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(plugins_with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg), plugins_with_nodes
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip
            if results:  # one event for the point: a dozen plugins a cycle, most of them Skip
                self.options.event_recorder.emit("prefilter", cycle=self.scheduling_cycle, pod=pod.key,
                                                 results=results)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        """Tell every PreFilter plugin's extension that a pod joins the node (nominated pods,
        preemption dry runs), so its precomputed state stays right."""
        return self._run_pre_filter_extension("AddPod", state, pod_to_schedule, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        """The same for a pod leaving the node (a preemption victim in a dry run)."""
        return self._run_pre_filter_extension("RemovePod", state, pod_to_schedule, pod_info_to_remove,
                                              node_info)

    def _run_pre_filter_extension(self, op: str, state: CycleState, pod_to_schedule: Pod, pod_info: PodInfo,
                                  node_info: NodeInfo) -> Status | None:
        for pl in self.pre_filter_plugins:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name in state.skip_filter_plugins:
                continue
            fn = ext.add_pod if op == "AddPod" else ext.remove_pod
            s = fn(state, pod_to_schedule, pod_info, node_info)
            if s is not None and s.code != Code.SUCCESS:
                return Status.error(f"running {op} on PreFilter plugin \"{pl.name}\": {s.message()}")
        return None

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if skip and pl.name in skip:
                continue
            s = pl.filter(state, pod, node_info)
            if s is not None and s.code != Code.SUCCESS:
                if not s.is_rejected():
                    s = Status.error(f"running \"{pl.name}\" filter plugin: {s.message()}")
                s.plugin = pl.name
                return s
        return None

    def run_filter_plugins_batch(self, state: CycleState, pod: Pod,
                                 nodes: list[NodeInfo]) -> list[Status | None]:
        """run_filter_plugins on every node (the result per node, in order), plugin by plugin:
        each plugin sees only the nodes every earlier plugin accepted, so every node meets
        exactly the plugins it would meet one node at a time, with the same verdicts."""
        return self.run_filter_plugins_chunk(state, pod, nodes).statuses

    def run_filter_plugins_chunk(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> FilterChunk:
        """run_filter_plugins_batch, also giving the nodes that passed and each distinct
        rejection's node count (FilterChunk): the fast walk takes a chunk rejected almost
        everywhere without passing over its statuses again."""
        # The fast path's rows of `nodes`: once an earlier plugin has rejected some nodes, the
        # rows of those left are handed on (NodeRows of the subset), so the next plugins keep
        # their vector tests; the chunk's own rows are put back at the end.
        rows = state.get(NODE_ROWS_KEY)
        if type(rows) is not NodeRows or rows.nodes is not nodes:
            rows = None
        try:
            return self._filter_batch(state, pod, nodes, state.skip_filter_plugins, rows)
        finally:
            if rows is not None:
                state.write(NODE_ROWS_KEY, rows)

    def _filter_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo], skip: Any,
                      rows: NodeRows | None) -> FilterChunk:
        n_all = len(nodes)
        result: list[Status | None] = [None] * n_all
        alive = nodes
        # Where the nodes still in the running are: while the rejections are few, the sorted
        # positions rejected so far (`gone`; every other position is alive); after many, the
        # positions of the alive ones (`alive_idx`, and gone is None).
        gone: list[int] | None = []
        alive_idx: list[int] = []
        counts: dict[Status, int] | None = {}
        base = None  # the chunk's row numbers as an index array, made when first needed
        alive_rows: NodeRows | None = None  # the rows of `alive` once some were rejected
        for pl in self.filter_plugins:
            if skip and pl.name in skip:
                continue
            if not alive:
                break
            if rows is not None and (gone is None or gone):
                if alive_rows is None:
                    import numpy as np

                    if base is None:
                        idx = rows.idx
                        base = (np.arange(idx.start, idx.stop, dtype=np.intp) if type(idx) is slice
                                else np.asarray(idx, dtype=np.intp))
                    at = (np.delete(base, gone) if gone is not None
                          else base[np.fromiter(alive_idx, np.intp, len(alive_idx))])
                    alive_rows = NodeRows(rows.arrays, at, alive)
                state.write(NODE_ROWS_KEY, alive_rows)
            sts = pl.filter_nodes(state, pod, alive)
            rejected, passed = fc.split(sts)
            if not rejected:
                continue
            n = len(sts)
            found = fc.distinct_counts(rejected)
            if any(s.code not in _REJECTED_CODES for s in found):
                where = fc.alive_positions(n_all, gone, alive_idx)
                alive, alive_idx = self._filter_verdicts(pl.name, sts, result, alive, where)
                alive_rows = None
                counts = gone = None
                continue
            # Every status is a rejection (the common case): each distinct status is touched
            # once (a plugin may give one Status to all the nodes it rejects for one reason).
            for s in found:
                s.plugin = pl.name
            if counts is not None:
                for s, k in found.items():
                    counts[s] = counts.get(s, 0) + k
            if not passed:  # every node still in the running rejected here
                if gone is not None and len(found) == 1:
                    # One Status for every node left: the list is that Status, with the few
                    # earlier rejections put back at their positions.
                    fresh: list[Status | None] = [rejected[0]] * n_all
                    for p in gone:
                        fresh[p] = result[p]
                    result = fresh
                elif gone is not None:
                    result = fc.fill_gaps(result, gone, sts) if gone else list(sts)
                else:
                    for i, s in zip(alive_idx, sts, strict=True):
                        result[i] = s
                alive, alive_idx, gone = [], [], None
                break
            if gone is not None and len(rejected) * fc.FEW <= n:
                drop = fc.positions(sts)
                where = fc.shift(drop, gone) if gone else drop
                for i, s in zip(where, rejected, strict=True):
                    result[i] = s
                alive = fc.without(alive, drop)
                gone = fc.merge_sorted(gone, where)
            else:
                where = fc.alive_positions(n_all, gone, alive_idx)
                keep = fc.passed_mask(sts)
                if gone is not None and not gone:
                    result[:] = sts
                else:
                    for i, s in zip(compress(where, sts), rejected, strict=True):
                        result[i] = s
                alive_idx = list(compress(where, keep))
                alive = list(compress(alive, keep))
                gone = None
            alive_rows = None
        if gone is not None:
            return FilterChunk(result, alive, fc.without(fc.upto(n_all), gone) if gone else None, counts)
        return FilterChunk(result, alive, alive_idx, counts)

    @staticmethod
    def _filter_verdicts(plugin: str, sts: list[Status | None], result: list[Status | None],
                         alive: list[NodeInfo], alive_idx: list[int] | None) -> tuple[list[NodeInfo], list[int]]:
        """One plugin's verdicts on `alive`, node by node: the general form of _filter_batch's
        step (Success-coded statuses pass, anything not a rejection becomes an Error)."""
        next_alive: list[NodeInfo] = []
        next_idx: list[int] = []
        for k, s in enumerate(sts):
            i = k if alive_idx is None else alive_idx[k]
            if s is not None and s.code != Code.SUCCESS:
                if s.code not in _REJECTED_CODES:  # not s.is_rejected(), without the call
                    s = Status.error(f"running \"{plugin}\" filter plugin: {s.message()}")
                s.plugin = plugin
                result[i] = s
            else:
                next_alive.append(alive[k])
                next_idx.append(i)
        return next_alive, next_idx

    def run_filter_plugins_verbose(self, state: CycleState, pod: Pod,
                                   node_info: NodeInfo) -> tuple[Status | None, dict[str, Any]]:
        """Like run_filter_plugins, also returning each plugin's verdict for the UI
        ("not evaluated" after the first rejection, as upstream stops there)."""
        verdicts: dict[str, Any] = {}
        result: Status | None = None
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if pl.name in skip:
                verdicts[pl.name] = {"code": "Skip"}
                continue
            if result is not None:
                verdicts[pl.name] = {"code": "NotEvaluated"}
                continue
            s = pl.filter(state, pod, node_info)
            if s is not None and s.code != Code.SUCCESS:
                if not s.is_rejected():
                    s = Status.error(f"running \"{pl.name}\" filter plugin: {s.message()}")
                s.plugin = pl.name
                result = s
                verdicts[pl.name] = {"code": s.code.label, "reasons": list(s.reasons)}
            else:
                verdicts[pl.name] = {"code": "Success"}
        return result, verdicts

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """Filter twice when higher-or-equal priority pods are nominated to the node: once with
        them added (they must still fit), once without (the pod must fit on its own)."""
        state_out, node_out, added = self._add_ge_nominated_pods(state, pod, node_info)
        if isinstance(added, Status):
            return added
        status = self.run_filter_plugins(state_out, pod, node_out)
        if status is not None and not status.is_rejected():
            return status
        if not added or status is not None:
            return status
        return self.run_filter_plugins(state, pod, node_info)

    def _add_ge_nominated_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo):
        nominated = self.nominated_pods_for_node(node_info.name)
        if not nominated:
            return state, node_info, False
        node_out = None
        state_out = None
        added = False
        for pi in nominated:
            if pi.pod.priority >= pod.priority and pi.pod.uid != pod.uid:
                if node_out is None:
                    node_out = node_info.snapshot()
                    state_out = state.clone()
                node_out.add_pod_info(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, node_out)
                if s is not None and s.code != Code.SUCCESS:
                    return state, node_info, s
                added = True
        if not added:
            return state, node_info, False
        return state_out, node_out, True

    # ---- PostFilter ---------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Pod,
                                node_to_status: NodeToStatus) -> tuple[fi.PostFilterResult | None, Status]:
        result = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            r, s = pl.post_filter(state, pod, node_to_status)
            self.options.event_recorder.emit(
                "postfilter", cycle=self.scheduling_cycle, pod=pod.key, plugin=pl.name,
                code=(s.code.label if s else "Success"), reasons=(s.reasons if s else []),
                nominated_node=(r.nominated_node_name if r else ""))
            if s is None or s.code == Code.SUCCESS:
                return r, s or Status(Code.SUCCESS)
            if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                s.plugin = pl.name
                return r, s
            if not s.is_rejected():
                return None, Status.error(s.message(), plugin=pl.name)
            if r is not None:
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = pl.name
        return result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    # ---- Score ---------------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        skip: set[str] = set()
        try:
            for pl in self.pre_score_plugins:
                s = pl.pre_score(state, pod, nodes)
                if s is not None and s.code == Code.SKIP:
                    skip.add(pl.name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    return Status.error(f"running PreScore plugin \"{pl.name}\": {s.message()}")
            return None
        finally:
            state.skip_score_plugins = skip

    def _score_all(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[list[tuple[str, int, list[int]]], dict[str, Any] | None, list[ScoreList],
                              Status | None]:
        """Every non-skipped plugin's raw scores (node order), normalised in place: returns
        [(plugin, weight, scores)], the score columns when someone listens (score_columns), the
        scores' ScoreList summaries (made for the range check, reused by the totals), or an
        error."""
        skip = state.skip_score_plugins
        plugins = [pl for pl in self.score_plugins if pl.name not in skip] if skip else self.score_plugins
        per_plugin: list[tuple[str, int, list[int]]] = []
        weights = self.score_weights
        for pl in plugins:
            lst, st = pl.score_nodes(state, pod, nodes)
            if st is not None and st.code != Code.SUCCESS:
                return [], None, [], Status.error(f"running Score plugins: plugin \"{pl.name}\" failed with: "
                                              f"{st.message()}")
            per_plugin.append((pl.name, weights[pl.name], lst))  # type: ignore[arg-type]
        recording = self.events_enabled
        trusted = [score_record.ints_trusted(pl) for pl in plugins] if recording else []
        text_only = recording and getattr(self.options.event_recorder, "text_only", False)
        raw: list[Any] = []
        for pl, (name, _, lst), ints in zip(plugins, per_plugin, trusted or [False] * len(plugins), strict=True):
            ext = pl.score_extensions()
            if recording:  # Normalize works in place: keep the raw scores of a plugin that has it
                raw.append(None if ext is None else score_record.before_normalize(lst, ints, text_only))
            if ext is None:
                continue
            fast = getattr(ext, "normalize_score_values", None)
            if fast is not None:
                st = fast(state, pod, lst)
            else:
                ns = [NodeScore(ni.name, sc) for ni, sc in zip(nodes, lst, strict=True)]
                st = ext.normalize_score(state, pod, ns)
                lst[:] = [x.score for x in ns]
            if st is not None and st.code != Code.SUCCESS:
                return [], None, [], Status.error(f"running Normalize on Score plugins: plugin {name!r} failed "
                                              f"with: {st.message()}")
        lo, hi = fi.MIN_NODE_SCORE, fi.MAX_NODE_SCORE
        summaries = [ScoreList(lst) for _, _, lst in per_plugin]
        if not all(s.in_range(lo, hi) for s in summaries):
            # Report the first out-of-range score in node order, then plugin order.
            for i in range(len(nodes)):
                for name, _, lst in per_plugin:
                    sc = lst[i]
                    if sc > hi or sc < lo:
                        return [], None, [], Status.error(
                            f"applying score defaultWeights on Score plugins: plugin {name!r} returns an "
                            f"invalid score {sc}, it should in the range of [{lo}, {hi}] after normalizing")
        columns = None
        if recording:
            found = state.get(FEASIBLE_NAMES_KEY)
            names = found.names_of(nodes) if found is not None else None
            columns = score_record.score_columns(nodes, names, per_plugin, raw, summaries, trusted, text_only)
        return per_plugin, columns, summaries, None

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                          ) -> tuple[list[NodePluginScores] | None, Status | None, dict[str, Any] | None]:
        """Raw scores per plugin, normalised, then weighted and summed per node. The third value
        is the score columns for the UI (only built when someone listens)."""
        per_plugin, columns, _, st = self._score_all(state, pod, nodes)
        if st is not None:
            return None, st, None
        out: list[NodePluginScores] = []
        for i, ni in enumerate(nodes):
            total = 0
            scores = []
            for name, w, lst in per_plugin:
                ws = lst[i] * w
                scores.append((name, ws))
                total += ws
            out.append(NodePluginScores(ni.name, scores, total))
        return out, None, columns

    def run_score_plugins_totals(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                                 vector: bool = False, relative: bool = False
                                 ) -> tuple[list[int] | None, Status | None, dict[str, Any] | None]:
        """Only the weighted total per node (node order): what selectHost needs when no extender
        adds scores; with the score columns when someone listens. `vector`: NumPy is loaded (the
        snapshot has node arrays) and may sum the scores; `relative`: the totals less the share
        every node has alike, enough to select (totals.weighted_totals)."""
        per_plugin, columns, summaries, st = self._score_all(state, pod, nodes)
        if st is not None:
            return None, st, None
        weighted = [(w, s) for (_, w, _), s in zip(per_plugin, summaries, strict=True)]
        return weighted_totals(weighted, len(nodes), vector, relative), None, columns

    # ---- Reserve / Permit / Bind -----------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        for pl in self.reserve_plugins:
            s = pl.reserve(state, pod, node_name)
            if s is not None and s.code != Code.SUCCESS:
                if s.is_rejected():
                    s.plugin = pl.name
                    return s
                return Status.error(f"running Reserve plugin \"{pl.name}\": {s.message()}", plugin=pl.name)
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in reversed(self.reserve_plugins):
            pl.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod,
                           node_name: str) -> tuple[Status | None, dict[str, float]]:
        """Returns (status, {plugin: timeout}) — a Wait status when any plugin asked to wait."""
        waits: dict[str, float] = {}
        for pl in self.permit_plugins:
            s, timeout = pl.permit(state, pod, node_name)
            if s is None or s.code == Code.SUCCESS:
                continue
            if s.is_rejected():
                s.plugin = pl.name
                return s, {}
            if s.code == Code.WAIT:
                waits[pl.name] = min(timeout, 15 * 60.0)  # upstream caps at maxTimeout (15 min)
                continue
            return Status.error(f"running Permit plugin \"{pl.name}\": {s.message()}", plugin=pl.name), {}
        if waits:
            return Status(Code.WAIT, "one or more plugins asked to wait and no plugin rejected pod"), waits
        return None, {}

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        for pl in self.pre_bind_plugins:
            if pl.name in state.skip_pre_bind_plugins:
                continue
            s = pl.pre_bind(state, pod, node_name)
            if s is not None and s.code != Code.SUCCESS:
                if s.is_rejected():
                    s.plugin = pl.name
                    return s
                return Status.error(f"running PreBind plugin \"{pl.name}\": {s.message()}", plugin=pl.name)
        return None

    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Skip when no PreBind plugin has work for this pod (upstream RunPreBindPreFlights)."""
        skip: set[str] = set()
        any_ran = False
        for pl in self.pre_bind_plugins:
            s = pl.pre_bind_pre_flight(state, pod, node_name)
            if s is not None and s.code == Code.SKIP:
                skip.add(pl.name)
                continue
            if s is not None and s.code != Code.SUCCESS:
                return Status.error(f"running PreBindPreFlight \"{pl.name}\": {s.message()}", plugin=pl.name)
            any_ran = True
        state.skip_pre_bind_plugins = skip
        return None if any_ran else SKIP

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        for pl in self.bind_plugins:
            s = pl.bind(state, pod, node_name)
            if s is not None and s.code == Code.SKIP:
                continue
            if s is not None and s.code != Code.SUCCESS:
                if s.is_rejected():
                    s.plugin = pl.name
                    return s
                return Status.error(f'running Bind plugin \"{pl.name}\": {s.message()}', plugin=pl.name)
            return s
        return Status(Code.SKIP)

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in self.post_bind_plugins:
            pl.post_bind(state, pod, node_name)

    def plugin_names(self) -> dict[str, list[str]]:
        """Extension point -> plugin names, for the UI and `trace`."""
        return {p: [pl.name for pl in pls] for p, pls in self.points.items()}


