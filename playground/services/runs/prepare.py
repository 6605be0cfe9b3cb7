"""A scenario's kept YAML and a big scenario's run start, computed ahead of the Start click.

One concept, "what a Start needs, ready before it is asked for": the scenario's YAML, built once
per version of its objects and kept on the scenario (`scenario_yaml_versioned`), and for a big
scenario its whole run start. Services that change a scenario's objects call
`prepare_yaml_later`; a worker then keeps both (`scenario_prepare_by_id`).

Starting a run loads the scenario's YAML into the engine, describes frame 0 and takes
checkpoint 0: about 5 s of CPU at 5,000 nodes x 10,000 pods, most of it parsing YAML. After a
big scenario changes, a worker does all that once (`prepare_start`, queued by
`prepare_yaml_later`) for the scenario's seed and the default Kubernetes
version, through the same Engine a start uses, and keeps what the start would store: frame 0,
its events, the run's fields and checkpoint 0. A start with exactly those inputs (`take_prepared`)
then only writes those rows; the worker's warm-up restores checkpoint 0 as for any run.

A start is a function of its content alone (the YAML text, seed, Kubernetes version, feature
gates and the limits in force: `content_key`), so a start computed for one scenario serves every
scenario with the same content: a class forking the teacher's (or a gallery) scenario loads it
once, not thirty times, each in a web request. A start computed in a request is kept too
(`keep_start`), for the scenario's own seed and the default version.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from playground.infra import redis_client
from playground.infra.blob_write import insert_with_blob, update_with_blob
from playground.infra.bulk_insert import insert_rows
from playground.infra.heap import give_back
from playground.infra.queues import CONTINUATION_PRIORITY, runs_queue, send_task
from playground.manifests import build_yaml
from playground.models import PreparedStart, RunCheckpoint, RunEvent, RunFrame, Scenario, ScenarioObject
from playground.selectors.scenarios import cached_yaml, objects_version, scenario_manifests_streamed
from playground.services.runs import prepared_engine
from playground.services.runs.engine import EVENT_COLUMNS, Engine, load_simulation
from playground.services.runs.start_content import content_key
from playground.services.runs.start_summary import summarize_start
from scheduler_core.util.collector import collector_paused

logger = logging.getLogger(__name__)

START_UNIT = {"op": "start"}
PREPARE_MIN_OBJECTS = 1000  # scenarios with this many objects get their YAML and start built ahead
PREPARE_TASK = "playground.prepare_scenario_yaml"  # playground/tasks/scenarios.py, sent by name

# ---- the kept YAML ------------------------------------------------------------------------------


def scenario_yaml_prepare(*, scenario: Scenario) -> str:
    """The scenario's YAML, built and kept for the current version of its objects unless it is
    kept already (a run start then snapshots it without building it: seconds at 5,000 nodes).
    A change meanwhile only leaves a copy whose version never matches again."""
    return scenario_yaml_versioned(scenario=scenario)[0]


def scenario_yaml_versioned(*, scenario: Scenario) -> tuple[str, str]:
    """`scenario_yaml_prepare`, and the version of the objects the text is the YAML of."""
    version = objects_version(scenario=scenario)
    cached = cached_yaml(scenario=scenario, version=version)
    if cached is not None:
        return cached, version
    text = yaml_of_objects(scenario=scenario)
    Scenario.objects.filter(pk=scenario.pk).update(yaml_cache=text, yaml_cache_version=version)
    return text, version


YAML_CHUNK = 2000  # objects read and written to YAML at a time


def yaml_of_objects(*, scenario: Scenario) -> str:
    """`build_yaml` of the scenario's manifests, the same text, read and written YAML_CHUNK
    objects at a time: the whole list decoded at once was ~670 MB at 5,000 nodes x 150,000
    pods, and its pieces left behind in the worker's heap raised the memory of everything after
    (the engine loaded next, its checkpoint) by ~140 MB. A chunk after the first is written as
    the documents after a first one (`build_yaml` of `[{}, *chunk]`, that `{}` cut off), so each
    starts with the "---" line it has in the whole stream."""
    pieces: list[str] = []
    chunk: list[dict[str, Any]] = []
    with collector_paused():  # nothing made here is cyclic garbage; a full collection per chunk walked them all
        for manifest in scenario_manifests_streamed(scenario=scenario, chunk_size=YAML_CHUNK):
            chunk.append(manifest)
            if len(chunk) == YAML_CHUNK:
                pieces.append(_chunk_yaml(chunk, first=not pieces))
                chunk = []
        if chunk or not pieces:
            pieces.append(_chunk_yaml(chunk, first=not pieces))
    return "".join(pieces)


def _chunk_yaml(chunk: list[dict[str, Any]], *, first: bool) -> str:
    if first:
        return build_yaml(chunk)
    text = build_yaml([{}, *chunk])
    if not text.startswith(_EMPTY_FIRST):  # build_yaml changed how it writes a stream
        raise ValueError(f"build_yaml wrote an empty first document as {text[:20]!r}")
    return text[len(_EMPTY_FIRST):]


_EMPTY_FIRST = "{}\n"  # how build_yaml writes an empty first document


def scenario_prepare_by_id(*, scenario_id: int, stopped: str = "", home: str | None = None) -> None:
    """A worker's part (see `prepare_yaml_later`): keep the YAML, then the run start. `stopped`:
    what a start waiting for it is told if the task's soft time limit stops it (`prepare_start`).
    `home`: the worker's own queue (it keeps the engine it computes: `prepared_engine`)."""
    scenario = Scenario.objects.defer("yaml_cache").filter(pk=scenario_id).first()
    if scenario is not None:
        # The worker's task before this one (often the upload's check: the whole scenario loaded
        # and stored) can leave its objects as cyclic garbage, ~350 MB at 5,000 x 150,000: freed
        # now, the YAML's build and the engine's load reuse that memory instead of growing past it.
        gc.collect()
        prepare_start(scenario=scenario, stopped=stopped, home=home)


def prepare_yaml_later(scenario: Scenario, objects: int) -> None:
    """After this transaction commits, have a worker build the YAML of a big scenario whose
    objects just changed, and its run start (`prepare_start`), so the owner's next Start
    or download finds them ready. Best effort (small scenarios build theirs in milliseconds
    when needed; a broker that cannot take the task now only means the next start builds it)."""
    if objects < PREPARE_MIN_OBJECTS:
        if start_weight(scenario.pk) < PREPARE_MIN_OBJECTS:  # a long Timeline counts too
            return

    def queue() -> None:
        try:
            queue = runs_queue()
            # Background work: behind every waiting Step, like a play's next slice.
            send_task(PREPARE_TASK, (scenario.pk,), priority=CONTINUATION_PRIORITY,
                      **({"queue": queue} if queue else {}))
        except Exception:
            logger.warning("scenario %s: could not queue its YAML", scenario.pk, exc_info=True)

    transaction.on_commit(queue)


# ---- the prepared start ------------------------------------------------------------------------


def start_weight(scenario_id: int) -> int:
    """How much loading the scenario costs, in objects: its objects plus the actions of its
    Timeline document (stored as one object, but each action is parsed, defaulted and validated
    like an object: a few nodes with a 200,000-action timeline took 17-33 s to start). Compared
    with `PREPARE_MIN_OBJECTS`: at or above it, a worker computes the start, never a request.
    Counted by the database (the timeline's JSON is never decoded here)."""
    from django.db import connection

    objects = ScenarioObject.objects.filter(scenario_id=scenario_id)
    count = objects.count()
    table = ScenarioObject._meta.db_table
    if connection.vendor == "postgresql":
        length = "jsonb_array_length(manifest->'actions')"
        typed = "jsonb_typeof(manifest->'actions') = 'array'"
    else:  # SQLite's JSON1 (built in)
        length = "json_array_length(manifest, '$.actions')"
        typed = "json_type(manifest, '$.actions') = 'array'"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(SUM({length}), 0) FROM {table} WHERE scenario_id = %s AND kind = %s AND {typed}",
            [scenario_id, "Timeline"],
        )
        actions = int(cursor.fetchone()[0] or 0)
    return count + actions


def start_key(version: str, seed: int, kubernetes_version: str) -> str:
    """What a prepared start was computed from: the objects' version, the seed, the version."""
    return f"{version}|{seed}|{kubernetes_version}"


@dataclass
class Prepared:
    frame: dict[str, Any]  # RunFrame fields of frame 0
    events: list[dict[str, Any]]  # as stored: a big start's queue entries summarised (start_summary)
    fields: dict[str, Any]  # Run fields after the start
    checkpoint: bytes  # the engine after its start, events taken: the run's checkpoint 0
    engine: Any = field(default=None, repr=False, compare=False)  # the Engine computed (never stored)

    def store(self, run_id: int) -> None:
        """The start's rows for run `run_id` (inside the caller's transaction), as
        `Engine.flush` and `Engine.store_checkpoint` would have written them (`insert_rows`:
        a big cluster's start is one event per pod and a checkpoint of hundreds of MB)."""
        from playground.monitoring.collectors import record_steps

        frame = {"run": run_id, **self.frame, "plugin_wall": []}
        insert_rows(RunFrame, tuple(frame), [tuple(frame.values())])
        # A start kept before its queue entries were summarised is summarised here (a no-op after).
        events = summarize_start(self.events)
        insert_rows(RunEvent, EVENT_COLUMNS, ((run_id, e["seq"], 0, e["type"], e) for e in events))
        insert_with_blob(RunCheckpoint, ("run", "step"), (run_id, 0), "blob", self.checkpoint)
        record_steps(1)


def compute_start(text: str, seed: int, kubernetes_version: str, feature_gates: str = "") -> Prepared:
    """Load the scenario into the engine and record its start: what a run start stores. Touches
    no database (ScenarioError and the configuration errors propagate). The cyclic collector
    is paused meanwhile: the engine, frame 0 and the start's events are millions of objects,
    all kept, and each collection on the way walked all those made so far (a third of the CPU
    at 1,000 nodes x 30,000 pods). It is `recorded_start` then `start_checkpoint`; a worker's
    preparation stores the start between the two (`_store_in_two`)."""
    prepared = recorded_start(text, seed, kubernetes_version, feature_gates)
    del text
    prepared.checkpoint = start_checkpoint(prepared)
    return prepared


def recorded_start(text: str, seed: int, kubernetes_version: str, feature_gates: str = "") -> Prepared:
    """`compute_start` but its checkpoint (`checkpoint` empty, `engine` the one to take it of).

    The text is let go of once loaded: a caller that handed it over (`prepare_start`) then no
    longer holds its 74 MB at the envelope while the checkpoint is taken. The start's events
    are summarised before they are recorded (`summarize_start`: the same list the start
    stores), so the engine never makes a RunEvent per pod only to drop them."""
    with collector_paused(collect_first=True):
        sim = load_simulation(text, seed, kubernetes_version, feature_gates)
        del text
        engine = Engine(run_id=0, sim=sim, step=0, stored_step=0, stored_seq=0)
        events, sim.sink.events = summarize_start(sim.sink.events), []
        engine._record(START_UNIT, "start", None, 1, events)  # step 0: a keyframe
        del events
        return Prepared(frame={name: getattr(engine.frames[0], name) for name in FRAME_FIELDS},
                        events=[e.data for e in engine.events], fields=engine.run_fields(),
                        checkpoint=b"", engine=engine)


def start_checkpoint(prepared: Prepared) -> bytes:
    """Checkpoint 0 of a recorded start (`recorded_start`): its engine after the start, events
    taken. The C heap's free pages go back first (`give_back`): the checkpoint's pickle memo
    and buffer are the preparation's biggest allocations and never reuse them."""
    give_back()
    with collector_paused():
        return prepared.engine.sim.checkpoint()


FRAME_FIELDS = ("step", "action_index", "unit", "result", "cycle", "clock", "first_seq", "last_seq", "view")


def prepare_start(*, scenario: Scenario, stopped: str = "", home: str | None = None) -> None:
    """Keep the scenario's YAML and its run start for its seed and the default version.
    `stopped`: the line a start waiting for this one gets when the worker's soft time limit
    stops it (the task knows its limits: tasks/limits.py); empty: a generic line. `home`: this
    worker's own queue, given in a worker: it keeps the engine it computed for the start's run
    (services/runs/prepared_engine.py)."""
    from scheduler_core.api.errors import ScenarioError
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    text, version = scenario_yaml_versioned(scenario=scenario)
    key = start_key(version, scenario.seed, DEFAULT_KUBERNETES_VERSION)
    if PreparedStart.objects.filter(scenario=scenario, key=key).exists():
        return
    with _preparing(scenario.pk) as mine:
        if not mine:
            return  # another worker is computing it right now
        content = content_key(text, scenario.seed, DEFAULT_KUBERNETES_VERSION)
        handed = [text]  # recorded_start takes it over and lets go of it once loaded
        del text
        try:
            prepared = take_by_content(content)
            if prepared is not None:
                _store_for(scenario, key, content, prepared)
            else:
                try:
                    prepared = recorded_start(handed.pop(), scenario.seed, DEFAULT_KUBERNETES_VERSION)
                except ScenarioError:
                    return  # a start will say why
                _store_in_two(scenario, key, content, prepared)  # the limit may fall here too: nothing is served
        except SoftTimeLimitExceeded:  # said while the mark is still held: a waiting start reads it
            mark_stopped(scenario.pk, stopped or "stopped: it ran past the worker's time limit; nothing of it was kept")
            raise
        engine, prepared = prepared.engine, None  # the stored rows' values (the checkpoint: 115 MB) go now
        if home is not None and engine is not None:
            prepared_engine.keep(content, engine, home)


STOPPED_TTL = 3600  # s a preparation stopped by its time limit is remembered


def _stopped_key(scenario_id: int) -> str:
    return f"playground:prepare-stopped:{scenario_id}"


def mark_stopped(scenario_id: int, message: str) -> None:
    """A worker's preparation of the scenario's start passed its time limit (tasks/limits.py):
    the start waiting for it fails with `message` instead of computing it in the web request."""
    with contextlib.suppress(Exception):
        redis_client.shared().set(_stopped_key(scenario_id), message, ex=STOPPED_TTL)


def _stopped(scenario_id: int, *, clear: bool = False) -> str | None:
    try:
        client = redis_client.shared()
        value = client.getdel(_stopped_key(scenario_id)) if clear else client.get(_stopped_key(scenario_id))
    except Exception:
        return None
    return value.decode() if isinstance(value, bytes) else value


PREPARING_TTL = 20  # s the "being prepared" mark outlives its last heartbeat (a worker that died)
PREPARING_BEAT = 5  # s between the heartbeats of the worker computing it


def _preparing_key(scenario_id: int) -> str:
    return f"playground:preparing:{scenario_id}"


@contextlib.contextmanager
def _preparing(scenario_id: int) -> Iterator[bool]:
    """Hold the scenario's "being prepared" mark for the block: True if this caller got it (two
    queued preparations, the upload's and a waiting start's, then compute it once). The mark is
    renewed every PREPARING_BEAT seconds while the block runs, so a waiting start can tell a
    worker still computing (minutes at the envelope on a busy machine) from one that died."""
    import threading

    key = _preparing_key(scenario_id)
    try:
        mine = bool(redis_client.shared().set(key, 1, nx=True, ex=PREPARING_TTL))
    except Exception:  # no Redis: nobody else can be told either; compute
        mine = True
    done = threading.Event()

    def beat() -> None:
        while not done.wait(PREPARING_BEAT):
            with contextlib.suppress(Exception):
                redis_client.shared().expire(key, PREPARING_TTL)

    heart = threading.Thread(target=beat, name="preparing-heartbeat", daemon=True) if mine else None
    if heart is not None:
        heart.start()
    try:
        yield mine
    finally:
        done.set()
        if heart is not None:
            heart.join(PREPARING_BEAT)
            with contextlib.suppress(Exception):
                redis_client.shared().delete(key)


def _being_prepared(scenario_id: int) -> bool:
    try:
        return bool(redis_client.shared().exists(_preparing_key(scenario_id)))
    except Exception:
        return False


PICKUP_SECONDS = 10.0  # a start waits for a worker to begin computing it this long...
START_WAIT_SECONDS = 900.0  # ...then as long as that worker's heartbeat goes on, at most this long


def prepared_by_worker(*, scenario: Scenario, version: str, seed: int, kubernetes_version: str) -> Prepared | None:
    """A big scenario's start, computed by a worker while this request waits (sleeping: the web
    process's interpreter stays with its pages, where seconds of loading would stall every push
    and post it serves). The upload queued that work already, behind every Step; it is queued
    again in front, and computed once. None when no worker began it within PICKUP_SECONDS, or its
    heartbeat stopped without a result, or it did not finish within START_WAIT_SECONDS: the
    caller computes it. (A fixed two-minute wait gave up on a worker still computing the envelope
    on a loaded machine, and the request computed the same start again.) RunError when the
    worker's time limit stopped the preparation (`mark_stopped`)."""
    import time

    from playground.services.runs.errors import RunError

    _stopped(scenario.pk, clear=True)  # an earlier attempt's: this one is asked for afresh
    try:
        queue = runs_queue()
        send_task(PREPARE_TASK, (scenario.pk,), priority=0, **({"queue": queue} if queue else {}))
    except Exception:
        return None
    asked = time.monotonic()
    begun = False
    while time.monotonic() - asked < START_WAIT_SECONDS:
        found = take_prepared(scenario=scenario, version=version, seed=seed, kubernetes_version=kubernetes_version)
        if found is not None:
            return found
        stopped = _stopped(scenario.pk)
        if stopped:  # the worker's time limit stopped it: the request does not compute it either
            raise RunError(f"This scenario's start could not be prepared: {stopped}.")
        preparing = _being_prepared(scenario.pk)
        begun = begun or preparing
        if (not begun and time.monotonic() - asked > PICKUP_SECONDS) or (begun and not preparing):
            # Nobody took it up, or the worker stopped (died, or found it could not start).
            return take_prepared(scenario=scenario, version=version, seed=seed, kubernetes_version=kubernetes_version)
        time.sleep(0.1)
    return None


def _store_for(scenario: Scenario, key: str, content: str, prepared: Prepared) -> None:
    _write(scenario.pk, key, content, prepared.checkpoint, prepared.events, prepared.frame, prepared.fields)


PENDING = ""  # the key and content key of a prepared start whose checkpoint is not written yet


def _store_in_two(scenario: Scenario, key: str, content: str, prepared: Prepared) -> None:
    """A start just recorded (`recorded_start`) stored, then its checkpoint taken and stored.

    Writing frame 0 costs several times its JSON (37 MB at the envelope: the text, SQLite's
    copy, its record and its JSON check's parse, ~230 MB); taken with the checkpoint's 115 MB
    already held, that was the worker's peak. So the row is first written without checkpoint,
    under the PENDING key and content key (which no lookup asks for: a start never takes it),
    then the checkpoint is taken and set with the row's keys in one statement. A preparation
    stopped in between (its time limit) leaves a row nobody takes, replaced by the next one.
    When the row is gone meanwhile (a start stored its own, `keep_start`; someone deleted it),
    the whole row is written as `_write` writes it, so a finished preparation always leaves its
    start. Each big write starts with the C heap's free pages given back (`give_back`)."""
    give_back()
    _write(scenario.pk, PENDING, PENDING, b"", prepared.events, prepared.frame, prepared.fields)
    prepared.checkpoint = start_checkpoint(prepared)
    row = PreparedStart.objects.filter(scenario_id=scenario.pk, key=PENDING).values_list("pk", flat=True).first()
    if row is None or not update_with_blob(PreparedStart, row, ("key", "content_key"), (key, content),
                                           "checkpoint", prepared.checkpoint):
        give_back()
        _store_for(scenario, key, content, prepared)


def _write(scenario_id: int, key: str, content: str, checkpoint: bytes, events: Any, frame: Any, fields: Any) -> None:
    """The scenario's prepared start, replacing any it had (`insert_rows`: its checkpoint is
    hundreds of MB at the envelope, which DEBUG's query log would quote)."""
    with transaction.atomic():
        PreparedStart.objects.filter(scenario_id=scenario_id).delete()
        insert_with_blob(PreparedStart, ("scenario", "key", "content_key", "events", "frame", "fields", "created_at"),
                         (scenario_id, key, content, events, frame, fields, timezone.now()), "checkpoint", checkpoint)


def keep_start(*, scenario: Scenario, version: str, seed: int, kubernetes_version: str, feature_gates: str,
               content: str, prepared: Prepared) -> None:
    """Keep a start just computed for a run as the scenario's prepared start, when it is the one
    a prepared start holds (the scenario's seed, the default version, no gates): the next start
    of these objects, and of any scenario with the same content, then only writes rows."""
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    if feature_gates or seed != scenario.seed or kubernetes_version != DEFAULT_KUBERNETES_VERSION:
        return
    _store_for(scenario, start_key(version, seed, kubernetes_version), content, prepared)


def take_by_content(content: str) -> Prepared | None:
    """A start of any scenario with exactly this content (`content_key`), else None."""
    return _taken(PreparedStart.objects.filter(content_key=content))


def take_prepared(*, scenario: Scenario, version: str, seed: int, kubernetes_version: str) -> Prepared | None:
    """The prepared start for exactly these objects, seed and version, else None."""
    return _taken(PreparedStart.objects.filter(scenario=scenario, key=start_key(version, seed, kubernetes_version)))


def _taken(rows: Any) -> Prepared | None:
    """The first of these prepared starts, decoded (the collector paused: at the envelope its
    events and frame 0 are millions of objects, all kept), else None."""
    with collector_paused():
        row = rows.values_list("frame", "events", "fields", "checkpoint").first()
    if row is None or not row[0]:
        return None
    return Prepared(frame=row[0], events=row[1], fields=row[2], checkpoint=bytes(row[3]))


def copy_prepared(*, source: Scenario, source_version: str, fork: Scenario, fork_version: str) -> bool:
    """Give a fork (the same objects and seed) its source's prepared start under the fork's own
    version: a class forking a teacher's big scenario does not make the workers load it thirty
    times. False when the source has none for its current objects."""
    from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION

    key = start_key(source_version, source.seed, DEFAULT_KUBERNETES_VERSION)
    row = PreparedStart.objects.filter(scenario=source, key=key).first()
    if row is None or fork.seed != source.seed:
        return False
    _write(fork.pk, start_key(fork_version, fork.seed, DEFAULT_KUBERNETES_VERSION), row.content_key,
           bytes(row.checkpoint), row.events, row.frame, row.fields)
    return True
