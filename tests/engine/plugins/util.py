"""Builders for the in-tree plugin tests: resource pods/nodes, and running PreFilter/Filter or
PreScore/Score/NormalizeScore over a set of nodes like the framework would (sequentially)."""

from __future__ import annotations

from fractions import Fraction

from scheduler_core.api.types import Container, ContainerPort, Node, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, NodeScore
from tests.engine.plugins.fakes import FakeHandle, FakeSnapshot


def q(v: str | int) -> Fraction:
    """A tiny quantity parser: "100m", "2", "1Gi", "200Mi", "1k", plain ints."""
    if isinstance(v, int):
        return Fraction(v)
    suffixes = {"m": Fraction(1, 1000), "k": 1000, "M": 10**6, "G": 10**9, "Ki": 1024, "Mi": 1024**2,
                "Gi": 1024**3}
    for s in ("Ki", "Mi", "Gi", "m", "k", "M", "G"):
        if v.endswith(s):
            return Fraction(v[: -len(s)]) * suffixes[s]
    return Fraction(v)


def res(d: dict[str, str | int] | None) -> dict[str, Fraction]:
    return {k: q(v) for k, v in (d or {}).items()}


def container(requests: dict | None = None, *, name: str = "c", image: str = "",
              ports: list[ContainerPort] | None = None, sidecar: bool = False) -> Container:
    return Container(name=name, image=image, requests=res(requests), ports=list(ports or []),
                     restart_policy="Always" if sidecar else None)


def rpod(name: str = "p", *containers: dict | Container, init: list[dict | Container] | None = None,
         overhead: dict | None = None, node: str = "", **kw) -> Pod:
    """A pod whose containers request the given resource dicts."""
    cs = [c if isinstance(c, Container) else container(c, name=f"c{i}") for i, c in enumerate(containers)]
    ics = [c if isinstance(c, Container) else container(c, name=f"i{i}") for i, c in enumerate(init or [])]
    return Pod(name=name, uid=f"uid-{name}", containers=cs, init_containers=ics, overhead=res(overhead),
               node_name=node, **kw)


def rnode(name: str, alloc: dict | None = None, **kw) -> Node:
    a = res(alloc)
    a.setdefault("pods", Fraction(110))
    return Node(name=name, allocatable=a, capacity=dict(a), **kw)


def node_info(node: Node, *pods: Pod) -> NodeInfo:
    ni = NodeInfo(node)
    for p in pods:
        ni.add_pod(p)
    return ni


def handle_for(nodes: list[Node], pods: list[Pod] | None = None) -> FakeHandle:
    return FakeHandle(FakeSnapshot(pods or [], nodes))


def run_filter(plugin, pod: Pod, ni: NodeInfo, state: CycleState | None = None):
    """PreFilter (if any; Skip means Filter is not run) then Filter; returns the Filter status."""
    state = state or CycleState()
    if hasattr(plugin, "pre_filter"):
        _, st = plugin.pre_filter(state, pod, [ni])
        if st is not None:
            if st.code == Code.SKIP:
                return None
            return st
    return plugin.filter(state, pod, ni)


def run_score(plugin, pod: Pod, nis: list[NodeInfo], state: CycleState | None = None) -> list[int] | None:
    """PreScore (None means Skip) + Score + NormalizeScore over the node infos."""
    state = state or CycleState()
    if hasattr(plugin, "pre_score"):
        st = plugin.pre_score(state, pod, nis)
        if st is not None:
            assert st.code == Code.SKIP, st
            return None
    scores = []
    for ni in nis:
        s, st = plugin.score(state, pod, ni)
        assert st is None, st
        scores.append(NodeScore(ni.name, s))
    ext = plugin.score_extensions()
    if ext is not None:
        assert ext.normalize_score(state, pod, scores) is None
    return [s.score for s in scores]
