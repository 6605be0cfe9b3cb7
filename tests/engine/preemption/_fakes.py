"""A small fake runtime for preemption tests: a snapshot, a cluster, a nominator, an RNG with a
chosen offset, and a filter run over real plugins (NodeResourcesFit by default), with
upstream's RunFilterPluginsWithNominatedPods semantics."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from scheduler_core.api.types import Container, LabelSelector, Node, Pod, PodDisruptionBudget
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_to_status import NodeToStatus
from scheduler_core.framework.plugins.defaultpreemption import DefaultPreemption
from scheduler_core.framework.plugins.noderesources.fit import Fit
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, PodInfo

GI = 1024 ** 3


def mk_node(name: str, cpu: str | int = 4, mem: int = 8 * GI, pods: int = 110, labels: dict | None = None) -> Node:
    alloc = {"cpu": Fraction(cpu), "memory": Fraction(mem), "pods": Fraction(pods)}
    return Node(name=name, labels=dict(labels or {"kubernetes.io/hostname": name}),
                capacity=dict(alloc), allocatable=dict(alloc))


_uid = [0]


def mk_pod(name: str, cpu: str | int = 1, priority: int = 0, node: str = "", labels: dict | None = None,
           start_time: float | None = 0.0, namespace: str = "default", **kw: Any) -> Pod:
    _uid[0] += 1
    return Pod(name=name, namespace=namespace, uid=f"uid-{name}-{_uid[0]}", labels=dict(labels or {}),
               node_name=node, priority=priority, start_time=start_time if node else None,
               containers=[Container(name="c", requests={"cpu": Fraction(cpu), "memory": Fraction(GI)})], **kw)


def mk_pdb(name: str, match: dict, allowed: int, namespace: str = "default", **kw: Any) -> PodDisruptionBudget:
    return PodDisruptionBudget(name=name, namespace=namespace, selector=LabelSelector(match_labels=match),
                               disruptions_allowed=allowed, **kw)


class FixedRng:
    """Stands in for random.Random: randrange returns a chosen offset and records the calls."""

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset
        self.calls: list[int] = []

    def randrange(self, n: int) -> int:
        self.calls.append(n)
        return self.offset % n


class FakeSnapshot:
    def __init__(self, infos: list[NodeInfo]) -> None:
        self.infos = infos
        self.by_name = {ni.name: ni for ni in infos}

    def list(self) -> list[NodeInfo]:
        return self.infos

    def get(self, name: str) -> NodeInfo | None:
        return self.by_name.get(name)


class FakeCluster:
    def __init__(self, pods: list[Pod], pdbs: list[PodDisruptionBudget]) -> None:
        self._pods = {p.key: p for p in pods}
        self._pdbs = pdbs

    def pdbs(self) -> list[PodDisruptionBudget]:
        return self._pdbs

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        return self._pods.get(f"{namespace}/{name}")

    def delete(self, pod: Pod) -> None:
        self._pods.pop(pod.key, None)


class FakeExtender:
    def __init__(self, drop: set[str] | None = None, error: str = "", ignorable: bool = False,
                 interested: bool = True, supports: bool = True) -> None:
        self.drop = drop or set()
        self.error = error
        self.ignorable = ignorable
        self.interested = interested
        self.supports = supports
        self.seen: list[list[str]] = []

    def supports_preemption(self) -> bool:
        return self.supports

    def is_interested(self, pod: Pod) -> bool:
        return self.interested

    def is_ignorable(self) -> bool:
        return self.ignorable

    def process_preemption(self, pod: Pod, victims_map: dict) -> dict:
        self.seen.append(list(victims_map))
        if self.error:
            raise RuntimeError(self.error)
        return {k: v for k, v in victims_map.items() if k not in self.drop}


class FakeHandle:
    """The Handle preemption needs, backed by plain lists."""

    def __init__(self, nodes: list[Node], pods: list[Pod], pdbs: list[PodDisruptionBudget] | None = None,
                 offset: int = 0, filter_plugins: list[Any] | None = None, now: float = 1000.0,
                 nominated: dict[str, list[Pod]] | None = None, extenders: list[Any] | None = None,
                 seeded_rng: int | None = None) -> None:
        infos = [NodeInfo(n) for n in nodes]
        by_name = {ni.name: ni for ni in infos}
        for p in pods:
            if p.node_name:
                by_name[p.node_name].add_pod(p)
        self.snapshot = FakeSnapshot(infos)
        self.cluster = FakeCluster(pods, list(pdbs or []))
        self.rng: Any = random.Random(seeded_rng) if seeded_rng is not None else FixedRng(offset)
        self._now = now
        self.nominated = {k: [PodInfo(p) for p in v] for k, v in (nominated or {}).items()}
        self.extenders = list(extenders or [])
        self.events_enabled = True
        self.events: list[tuple[str, dict]] = []
        self.log: list[tuple] = []  # ("clear", key) / ("preempt", victim key, preemptor key, node)
        self.filter_plugins = filter_plugins if filter_plugins is not None else [Fit(None, self)]

    # Handle ---------------------------------------------------------------------------------
    def now(self) -> float:
        return self._now

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.nominated.get(node_name, []))

    def emit(self, event_type: str, **fields: Any) -> None:
        self.events.append((event_type, fields))

    def preempt_victim(self, victim: Pod, preemptor: Pod, node_name: str) -> Status | None:
        self.log.append(("preempt", victim.key, preemptor.key, node_name))
        self.cluster.delete(victim)
        return None

    def clear_nominated_node_name(self, pod: Pod) -> None:
        self.log.append(("clear", pod.key))
        pod.nominated_node_name = ""

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        for pl in self.filter_plugins:
            ext = pl.pre_filter_extensions() if hasattr(pl, "pre_filter_extensions") else None
            if ext is not None:
                st = ext.add_pod(state, pod_to_schedule, pod_info_to_add, node_info)
                if st is not None and st.code != Code.SUCCESS:
                    return st
        return None

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        for pl in self.filter_plugins:
            ext = pl.pre_filter_extensions() if hasattr(pl, "pre_filter_extensions") else None
            if ext is not None:
                st = ext.remove_pod(state, pod_to_schedule, pod_info_to_remove, node_info)
                if st is not None and st.code != Code.SUCCESS:
                    return st
        return None

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        for pl in self.filter_plugins:
            st = pl.filter(state, pod, node_info)
            if st is not None and st.code != Code.SUCCESS:
                st.plugin = pl.name
                return st
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        ge = [pi for pi in self.nominated.get(node_info.name, [])
              if pi.pod.priority >= pod.priority and pi.pod.uid != pod.uid]
        if ge:
            node_out = node_info.snapshot()
            state_out = state.clone()
            for pi in ge:
                node_out.add_pod_info(pi)
                st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, node_out)
                if st is not None:
                    return st
            st = self.run_filter_plugins(state_out, pod, node_out)
            if st is not None:
                return st
        return self.run_filter_plugins(state, pod, node_info)

    # Test helpers ---------------------------------------------------------------------------
    def schedule_and_preempt(self, pod: Pod, plugin: DefaultPreemption | None = None,
                             statuses: dict[str, Status] | None = None):
        """PreFilter + Filter over every node (as the scheduling cycle would), then PostFilter."""
        state = CycleState()
        for pl in self.filter_plugins:
            if hasattr(pl, "pre_filter"):
                pl.pre_filter(state, pod, self.snapshot.list())
        m = NodeToStatus()
        for ni in self.snapshot.list():
            st = (statuses or {}).get(ni.name) or self.run_filter_plugins_with_nominated_pods(state, pod, ni)
            assert st is not None, f"pod fits on {ni.name}: nothing to preempt"
            m.set(ni.name, st)
        plugin = plugin or DefaultPreemption(None, self)
        return plugin.post_filter(state, pod, m)

    def preempted(self) -> list[str]:
        return [e[1] for e in self.log if e[0] == "preempt"]

    def last_preemption_event(self) -> dict:
        evs = [f for t, f in self.events if t == "preemption"]
        return evs[-1]


def fresh_status(code: Code = Code.UNSCHEDULABLE, *reasons: str) -> Status:
    return Status(code, *reasons)
