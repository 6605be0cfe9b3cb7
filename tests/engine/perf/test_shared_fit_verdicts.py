"""A pod that fits nowhere on a big cluster: NodeResourcesFit rejects thousands of nodes, and the
nodes rejected for the same reasons share one Status (the per-node check runs once per kind of
verdict), with the same reasons, codes and FailedScheduling text as node-by-node checks give."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.backend.cache.node_arrays import MIN_NODES
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis, FitError
from scheduler_core.loader import load_scenario_file
from scheduler_core.schedule_one import find_nodes_that_pass_filters
from scheduler_core.simulation import Simulation

NODES = MIN_NODES + 200  # past the bound where the snapshot keeps node arrays


def _cluster(tmp_path: Path) -> Simulation:
    """Nodes of 4 or 8 cpu; every third one allows a single pod and runs one. A pod asking for
    6 cpu: 4-cpu nodes lack cpu (and pod room, every third), 8-cpu nodes lack pod room every
    third and pass otherwise."""
    docs = []
    for i in range(NODES):
        cpu = 8 if i % 2 else 4
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n-{i:05d}}}\n"
                    f"status: {{capacity: {{cpu: '{cpu}', memory: 16Gi, pods: '{1 if i % 3 == 0 else 110}'}}}}\n")
        if i % 3 == 0:
            docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: run-{i}}}\nspec:\n  nodeName: n-{i:05d}\n"
                        "  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n")
    docs.append("apiVersion: v1\nkind: Pod\nmetadata: {name: wide}\nspec:\n"
                "  containers: [{name: c, image: x, resources: {requests: {cpu: '6'}}}]\n")
    path = tmp_path / "c.yaml"
    path.write_text("---\n".join(docs))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sim.scheduler.cache.update_snapshot(sim.scheduler.snapshot)
    return sim


def test_nodes_rejected_alike_share_one_status_with_the_per_node_verdict(tmp_path):
    sim = _cluster(tmp_path)
    sched = sim.scheduler
    assert sched.snapshot.node_arrays() is not None
    pod = sched.cluster.pods["default/wide"]
    fwk = sched.profiles[pod.scheduler_name]
    fit = next(pl for pl in fwk.filter_plugins if pl.name == "NodeResourcesFit")
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    diagnosis = Diagnosis()
    nodes = sched.snapshot.list()
    # Ask for every node: the walk visits all of them before it has enough feasible ones.
    sched.next_start_node_index = 0
    feasible = find_nodes_that_pass_filters(sched, fwk, state, pod, diagnosis, nodes)
    statuses = diagnosis.node_to_status.node_to_status
    assert len(statuses) > NODES // 2
    # One Status per kind of verdict in each batch of nodes the walk filters at once (a few
    # batches of hundreds), not one per node.
    verdicts = {(st.code, tuple(st.reasons)) for st in statuses.values()}
    assert len(verdicts) == 3
    assert len({id(st) for st in statuses.values()}) <= 3 * 10 < len(statuses) // 10
    by_name = {ni.name: ni for ni in nodes}
    for name, st in statuses.items():
        alone = fit.filter(state, pod, by_name[name])
        assert alone is not None and (alone.code, alone.reasons) == (st.code, st.reasons)
        assert st.plugin == "NodeResourcesFit"
    assert all(fit.filter(state, pod, ni) is None for ni in feasible)
    # The message counts each reason on every node that holds it.
    counted: dict[str, int] = {}
    for st in statuses.values():
        for r in st.reasons:
            counted[r] = counted.get(r, 0) + 1
    message = FitError(pod, len(nodes), diagnosis).message()
    for reason, n in counted.items():
        assert f"{n} {reason}" in message
