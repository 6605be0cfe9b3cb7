"""A big scenario's run start, computed ahead of the Start click.

Starting a run loads the scenario's YAML into the engine, describes frame 0 and takes
checkpoint 0: about 5 s of CPU at 5,000 nodes x 10,000 pods, most of it parsing YAML. After a
big scenario changes, a worker does all that once (`prepare_start`, queued by
services.scenarios.prepare_yaml_later) for the scenario's seed and the default Kubernetes
version, through the same Engine a start uses, and keeps what the start would store: frame 0,
its events, the run's fields and checkpoint 0. A start with exactly those inputs (`take_prepared`)
then only writes those rows; the worker's warm-up restores checkpoint 0 as for any run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.models import PreparedStart, RunCheckpoint, RunEvent, RunFrame, Scenario
from playground.services.runs.engine import Engine, load_simulation

START_UNIT = {"op": "start"}


def start_key(version: str, seed: int, kubernetes_version: str) -> str:
    """What a prepared start was computed from: the objects' version, the seed, the version."""
    return f"{version}|{seed}|{kubernetes_version}"


@dataclass
class Prepared:
    frame: dict[str, Any]  # RunFrame fields of frame 0
    events: list[dict[str, Any]]
    fields: dict[str, Any]  # Run fields after the start
    checkpoint: bytes  # the engine after its start, events taken: the run's checkpoint 0

    def store(self, run_id: int) -> None:
        """The start's rows for run `run_id` (inside the caller's transaction), as
        `Engine.flush` and `Engine.store_checkpoint` would have written them."""
        RunFrame.objects.create(run_id=run_id, **self.frame)
        RunEvent.objects.bulk_create(
            [RunEvent(run_id=run_id, seq=e["seq"], step=0, type=e["type"], data=e) for e in self.events],
            batch_size=500,
        )
        RunCheckpoint.objects.create(run_id=run_id, step=0, blob=self.checkpoint)


FRAME_FIELDS = ("step", "action_index", "unit", "result", "cycle", "clock", "first_seq", "last_seq", "view")


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
    engine = Engine(run_id=0, sim=sim, step=0, stored_step=0, stored_seq=0)
    events, sim.sink.events = sim.sink.events, []
    engine._record(START_UNIT, "start", None, 1, events)  # exactly what run_start records
    frame = {name: getattr(engine.frames[0], name) for name in FRAME_FIELDS}
    PreparedStart.objects.update_or_create(
        scenario=scenario,
        defaults={"key": key, "checkpoint": sim.checkpoint(), "events": [e.data for e in engine.events],
                  "frame": frame, "fields": engine.run_fields()},
    )


def take_prepared(*, scenario: Scenario, version: str, seed: int, kubernetes_version: str) -> Prepared | None:
    """The prepared start for exactly these objects, seed and version, else None."""
    key = start_key(version, seed, kubernetes_version)
    row = PreparedStart.objects.filter(scenario=scenario, key=key).values_list(
        "frame", "events", "fields", "checkpoint").first()
    if row is None or not row[0]:
        return None
    return Prepared(frame=row[0], events=row[1], fields=row[2], checkpoint=bytes(row[3]))


def copy_prepared(*, source: Scenario, source_version: str, fork: Scenario, fork_version: str) -> bool:
    """Give a fork (the same objects and seed) its source's prepared start under the fork's own
    version: a class forking a teacher's big scenario does not make the workers load it thirty
    times. False when the source has none for its current objects."""
    from scheduler_core.features import DEFAULT_KUBERNETES_VERSION

    key = start_key(source_version, source.seed, DEFAULT_KUBERNETES_VERSION)
    row = PreparedStart.objects.filter(scenario=source, key=key).first()
    if row is None or fork.seed != source.seed:
        return False
    PreparedStart.objects.update_or_create(
        scenario=fork,
        defaults={"key": start_key(fork_version, fork.seed, DEFAULT_KUBERNETES_VERSION), "checkpoint": row.checkpoint,
                  "events": row.events, "frame": row.frame, "fields": row.fields},
    )
    return True
