"""A pod whose preemption found no candidate stays in the nominator under the empty node name
(as upstream's nominator keeps it); it nominates nothing to any node, so the filter fast path
(framework/runtime/fastpath.py) still serves the next pods. Only a nomination to a real node
makes filtering take nominated pods into account (the plain walk)."""

from __future__ import annotations

from pathlib import Path

from scheduler_core.api.types import Pod
from scheduler_core.backend.cache.node_arrays import FEASIBLE_ROWS_KEY
from scheduler_core.backend.queue.nominator import NominatingInfo, NominatingMode
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.fit_error import Diagnosis
from scheduler_core.framework.types import PodInfo
from scheduler_core.loader import load_scenario_file
from scheduler_core.schedule_one import find_nodes_that_pass_filters
from scheduler_core.simulation import Simulation

NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}}}
status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def _settled(tmp_path: Path) -> Simulation:
    """Three 4-cpu nodes; a 40-cpu pod no preemption can help, and two that fit."""
    docs = [NODE.format(name=n) for n in ("node-a", "node-b", "node-c")]
    docs += [POD.format(name="huge", cpu="40"), POD.format(name="one", cpu="1"), POD.format(name="two", cpu="1")]
    path = tmp_path / "c.yaml"
    path.write_text("---\n".join(docs))
    sim = Simulation(load_scenario_file(str(path)), seed=0)
    sim.run()
    return sim


def _filter_path_state(sim: Simulation, pod: Pod) -> CycleState:
    """The cycle state one filter walk for `pod` leaves behind (PreFilter, then Filter)."""
    sched = sim.scheduler
    fwk = sched.profiles[pod.scheduler_name]
    sched.cache.update_snapshot(sched.snapshot)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    feasible = find_nodes_that_pass_filters(sched, fwk, state, pod, Diagnosis(), sched.snapshot.list())
    assert feasible  # three nodes with room for one more cpu
    return state


def test_an_empty_nomination_is_kept_but_leaves_the_fast_path_on(tmp_path):
    sim = _settled(tmp_path)
    nominator = sim.scheduler.queue.nominator
    huge = sim.scheduler.cluster.pods["default/huge"]
    assert not huge.node_name
    # Upstream keeps the pod under "" (PostFilter's override that clears a nomination).
    assert nominator.nominated_node_for(huge) == ""
    assert [r.key for r in nominator.nominated_refs_for_node("")] == ["default/huge"]
    assert not nominator.has_node_nominations()
    probe = Pod(name="probe", namespace="default", uid="probe-uid")
    # The fast path leaves the feasible nodes' rows for the Score phase; the plain walk does not.
    assert _filter_path_state(sim, probe).get(FEASIBLE_ROWS_KEY) is not None


def test_a_nomination_to_a_node_takes_the_plain_walk(tmp_path):
    sim = _settled(tmp_path)
    queue = sim.scheduler.queue
    huge = sim.scheduler.cluster.pods["default/huge"]
    queue.add_nominated_pod(PodInfo(huge), NominatingInfo("node-b", NominatingMode.OVERRIDE))
    assert queue.nominator.has_node_nominations()
    probe = Pod(name="probe", namespace="default", uid="probe-uid")
    assert _filter_path_state(sim, probe).get(FEASIBLE_ROWS_KEY) is None
    # Taken back to the empty node name, the fast path serves again.
    queue.add_nominated_pod(PodInfo(huge), NominatingInfo("", NominatingMode.OVERRIDE))
    assert not queue.nominator.has_node_nominations()
    assert _filter_path_state(sim, probe).get(FEASIBLE_ROWS_KEY) is not None
