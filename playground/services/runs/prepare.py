"""A big scenario's run start, computed ahead of the Start click.

Starting a run loads the scenario's YAML into the engine and takes checkpoint 0: about 4 s of
CPU at 5,000 nodes x 10,000 pods, most of it parsing YAML. After a big scenario changes, a
worker does that once (`prepare_start`, queued by services.scenarios.prepare_yaml_later) for the
scenario's seed and the default Kubernetes version and keeps the engine's state; `take_prepared`
hands a run start that engine, restored from the kept checkpoint (under a second), with the
start's events. The state is what `load_simulation` gives: a restored checkpoint is the same
engine, bit for bit (every rebuild of a run relies on that already).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.models import PreparedStart, Scenario
from playground.services.runs.engine import load_simulation


def start_key(version: str, seed: int, kubernetes_version: str) -> str:
    """What a prepared start was computed from: the objects' version, the seed, the version."""
    return f"{version}|{seed}|{kubernetes_version}"


@dataclass
class Prepared:
    sim: Any
    events: list[dict[str, Any]]
    checkpoint: bytes  # the engine after its start, events taken: the run's checkpoint 0


def prepare_start(*, scenario: Scenario) -> None:
    """Keep the scenario's YAML and its run start for its seed and the default version."""
    from playground.services.scenarios import scenario_yaml_versioned
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.features import DEFAULT_KUBERNETES_VERSION

    text, version = scenario_yaml_versioned(scenario=scenario)
    key = start_key(version, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    if PreparedStart.objects.filter(scenario=scenario, key=key).exists():
        return
    try:
        sim = load_simulation(text, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    except ScenarioError:
        return  # a start will say why
    events, sim.sink.events = sim.sink.events, []
    PreparedStart.objects.update_or_create(
        scenario=scenario, defaults={"key": key, "checkpoint": sim.checkpoint(), "events": events}
    )


def take_prepared(*, scenario: Scenario, version: str, seed: int, kubernetes_version: str) -> Prepared | None:
    """The prepared start for exactly these objects, seed and version, else None."""
    from playground.services.extender_access import web_policy
    from scheduler_core.simulation import Simulation

    key = start_key(version, seed, kubernetes_version)
    row = PreparedStart.objects.filter(scenario=scenario, key=key).values_list("checkpoint", "events").first()
    if row is None:
        return None
    blob = bytes(row[0])
    sim = Simulation.restore(blob)
    sim.extender_transcript.policy = web_policy()  # today's allow-list, as a rebuild does
    return Prepared(sim=sim, events=row[1], checkpoint=blob)
