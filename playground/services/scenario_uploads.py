"""Big uploads are checked by a worker, never in the web request.

Creating a scenario from YAML (a file, gzip or not, or a paste), importing YAML or a cluster dump
into a scenario, and saving a page of the YAML view all run the engine's loader over the whole
scenario: ~0.3 s of CPU per MB of YAML and ~50 us per pod a workload creates, so 3 s for a
200,000-action Timeline and ~20 s for a 5,000-node x 150,000-pod dump. A request only estimates
that cost from the text (`load_weight`: its size, its objects, the replicas its workloads ask
for, its DaemonSets times its nodes; a regular-expression scan, milliseconds, no parsing). Under
`PLAYGROUND_UPLOAD_WORKER_WEIGHT` (about 0.35 s of loader CPU) the request loads it as before
(services.scenarios). At or over it, the request stores the raw text as a `ScenarioUpload`, has
a worker check it (`upload_check`, tasks.scenarios: the same services, under the preparation's
time limits) and answers with the upload's page, which says "checking" until the worker is done,
then leads to the scenario or shows the loader's located error; a refused upload changes nothing.
An editor form's save or delete of one object loads the whole scenario again too: past the same
weight (its stored objects, 8 units each, as a YAML-view save counts them) it is kept the same
way (`object_later`, no text: the object's manifest in `params`) and answered the same way.

The upload belongs to whoever sent it (its owner columns, as a scenario's), and the worker acts
as that owner: the services check ownership as in a request. The hourly scenario quota is
charged by the request (playground/middleware.py) as for any creation.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from playground.limits import web_limits
from playground.models import Scenario, ScenarioUpload
from playground.ownership import Actor, ensure_can_edit, ensure_has_identity, owner_fields
from playground.services.scenario_validation import ScenarioInvalid

logger = logging.getLogger(__name__)

# Measured (bench/web_engine_paths.py, bench/history/2026-11-22_to_2026-11-28.md): the loader reads 3-4 MB of YAML per
# CPU second and expands a workload's pods at ~50 us each. One unit of weight is ~50 us of
# loader CPU: an expanded pod, or this many bytes of YAML.
BYTES_PER_UNIT = 160
DEFAULT_WORKER_WEIGHT = 7_000  # ~0.35 s of loader CPU: 0.54 s at most measured on a busy machine at 8,000

# A number longer than 12 digits is no workload size the loader expands: it refuses it first (out of
# range), in the request.
_REPLICAS = re.compile(rb"""["']?(?:replicas|parallelism|completions)["']?[ \t]*:[ \t]*["']?(\d{1,12})(?!\d)""")
_KIND = re.compile(rb"""["']?kind["']?[ \t]*:[ \t]*["']?(\w+)""")
# A cluster dump (a kubectl List, a kube-scheduler-simulator export): its import reduces the
# loader's documents and copies them (services.cluster_import), at most ~1.5x a plain file's
# cost per byte (bench/envelope_create.py's figures in bench/RESULTS.md: the 1 MB kubectl
# fixture's import 0.46 s CPU, its load alone 0.41-0.49 s; a 6.9 MB envelope dump 1.44 s, its
# load 0.93 s). Before an import loaded its text once, a dump cost ~10x and plain manifests 2x.
_DUMP = re.compile(rb"""(?m)^[ \t]*["']?items["']?[ \t]*:|["']?kind["']?[ \t]*:[ \t]*["']?List\b|"""
                   rb"""["'](?:pods|nodes|pvs|pvcs|storageClasses|priorityClasses|namespaces)["'][ \t]*:[ \t]*\[""")
IMPORT_FACTOR = 1  # an import of plain manifests costs what a create does (one load, the rows)
DUMP_IMPORT_FACTOR = 2
# A YAML-view save reads every stored object, writes its YAML and loads it all again: ~425 us an
# object (6.4 s for a page of a 15,000-object scenario).
STORED_OBJECT_UNITS = 8


def worker_weight() -> int:
    """The weight from which a worker checks an upload (0: always a worker)."""
    return int(getattr(settings, "PLAYGROUND_UPLOAD_WORKER_WEIGHT", DEFAULT_WORKER_WEIGHT))


def load_weight(text: str) -> int:
    """What loading `text` would cost, in units of ~50 us of loader CPU, estimated from the text
    alone: its bytes, its objects (each `kind:`, stored as a row), the pods its workloads ask for
    (replicas, a Job's parallelism and completions) and one pod per DaemonSet per Node. An over-estimate only sends the upload to
    a worker; the scan reads the bytes once (milliseconds per MB), decoding nothing."""
    data = text.encode("utf-8", "surrogatepass")
    weight = len(data) // BYTES_PER_UNIT
    if weight >= worker_weight():
        return weight  # a worker's already: no need to look further
    pods = sum(int(found) for found in _REPLICAS.findall(data))
    if pods <= web_limits().max_pods:
        # More pods than the web admits are refused by the loader before it builds any: at once,
        # in the request, with the setting to raise; only an admissible workload costs its pods.
        weight += pods
    kinds = _KIND.findall(data)
    weight += len(kinds)  # each object is stored as a row too: ~one more unit
    weight += kinds.count(b"Node") * kinds.count(b"DaemonSet")
    return weight


def needs_worker(text: str, *, scenario: Scenario | None = None, importing: bool = False) -> bool:
    """Whether loading `text` (with the rest of `scenario`, for a YAML-view edit, whose whole
    scenario is loaded again; `importing`: replacing a scenario's objects, a cluster dump's
    reduction included) is a worker's job rather than the request's."""
    weight = load_weight(text)
    if importing:
        weight *= DUMP_IMPORT_FACTOR if _DUMP.search(text.encode("utf-8", "surrogatepass")) else IMPORT_FACTOR
    if scenario is not None:
        from playground.services.runs.prepare import start_weight

        weight += start_weight(scenario.pk) * STORED_OBJECT_UNITS
    return weight >= worker_weight()


def scenario_needs_worker(scenario: Scenario) -> bool:
    """Whether changing one object of `scenario` (an editor form's save or delete, which loads
    the whole scenario again to validate it: 1.49 s for a Node of a 15,000-object scenario) is a
    worker's job: its stored objects weighed as a YAML-view save weighs them. Two database counts."""
    from playground.services.runs.prepare import start_weight

    return start_weight(scenario.pk) * STORED_OBJECT_UNITS >= worker_weight()


def object_later(
    *, actor: Actor, scenario: Scenario, kind: str, label: str, manifest: dict[str, Any] | None = None,
    object_id: int | None = None, delete: bool = False,
) -> ScenarioUpload:
    """Keep an editor form's change of one object (`manifest` saved as object `object_id`, a new
    one if None; or with `delete`, object `object_id` deleted) for a worker, which runs the same
    service the request runs for a small scenario; `label` names the object in the outcome."""
    return upload_later(
        actor=actor, operation=ScenarioUpload.OBJECT, text="", scenario=scenario, source=f"{kind} {label}",
        params={"kind": kind, "label": label, "object_id": object_id, "manifest": manifest, "delete": delete},
    )


def edit_later(*, actor: Actor, scenario: Scenario, change: str, label: str, args: dict[str, Any]) -> ScenarioUpload:
    """Keep an editor form's change beyond one object for a worker: `change` is "config" (the
    scheduler configuration, args: config), "nodes" (a batch of nodes, args: count, prefix, zones,
    template) or "pods" (a batch of pods, args: count, name, pod_template, with_replicaset); each
    is validated by loading the whole scenario again, as one object's save is."""
    assert change in EDITS, change
    return upload_later(
        actor=actor, operation=ScenarioUpload.OBJECT, text="", scenario=scenario, source=label,
        params={"change": change, "label": label, "args": args},
    )


def upload_later(
    *, actor: Actor, operation: str, text: str, source: str, scenario: Scenario | None = None, name: str = "",
    description: str = "", seed: int = 0, params: dict[str, Any] | None = None,
) -> ScenarioUpload:
    """Keep `text` for a worker's check and queue it (after this transaction commits); the
    caller answers with the upload's page. Ownership is checked now, and again by the worker."""
    if operation == ScenarioUpload.CREATE:
        ensure_has_identity(actor, "Creating a scenario")
    else:
        assert scenario is not None
        ensure_can_edit(scenario=scenario, actor=actor)
    upload = ScenarioUpload.objects.create(
        operation=operation, scenario=scenario, name=name[:200], description=description, seed=seed,
        source=source[:300], params=params or {}, text=text, **owner_fields(actor),
    )
    transaction.on_commit(lambda: _queue(upload.pk))
    return upload


CHECK_TASK = "playground.check_scenario_upload"  # playground/tasks/scenarios.py, sent by name


def _queue(upload_id: int) -> None:
    from playground.infra.queues import runs_queue, send_task

    queue = runs_queue()
    try:
        send_task(CHECK_TASK, (upload_id,), **({"queue": queue} if queue else {}))
    except Exception:  # no broker: say so on the upload's page rather than "checking" forever
        logger.warning("upload %s: could not queue its check", upload_id, exc_info=True)
        upload_fail(upload_id, "The scenario could not be checked now (no worker could be reached): try again.")


def _actor_of(upload: ScenarioUpload) -> Actor:
    user = get_user_model().objects.filter(pk=upload.owner_id).first() if upload.owner_id else None
    return Actor(session_token=upload.owner_token, user=user)


def upload_fail(upload_id: int, message: str, *, where: dict[str, Any] | None = None) -> None:
    """The check ended without changing anything: the upload shows `message`; its text is let go."""
    ScenarioUpload.objects.filter(pk=upload_id, status=ScenarioUpload.CHECKING).update(
        status=ScenarioUpload.FAILED, error=message, error_where=where or {}, text="", finished_at=timezone.now())


def upload_check(*, upload_id: int) -> None:
    """A worker's part: run the upload's service (the loader and the rows, as a request ran them
    before), then record the outcome on the upload."""
    from playground.presenters.load_warnings import newer_lines, not_simulated_lines, reference_lines
    from playground.services import scenario_objects, scenarios
    from playground.services.cluster_import import scenario_import_any

    upload = ScenarioUpload.objects.filter(pk=upload_id, status=ScenarioUpload.CHECKING).first()
    if upload is None:
        return  # checked already, or deleted
    actor = _actor_of(upload)
    notices: dict[str, Any] = {}
    try:
        if upload.operation == ScenarioUpload.CREATE:
            scenario = scenarios.scenario_create(actor=actor, name=upload.name, description=upload.description,
                                                 seed=upload.seed, yaml_text=upload.text, source=upload.source)
            warnings = scenario.not_simulated
        elif upload.operation == ScenarioUpload.IMPORT:
            result = scenario_import_any(scenario=upload.scenario, actor=actor, text=upload.text, source=upload.source)
            scenario, warnings = result.scenario, result.not_simulated
            notices["notice"] = (result.notice() if result.is_cluster_dump
                                 else f"Imported {upload.source}: all objects replaced.")
            notices["summary"] = result.lines if result.is_cluster_dump else []
        elif upload.operation == ScenarioUpload.OBJECT:
            scenario, warnings, notices["notice"] = _object_change(upload, actor)
        else:
            scenario = Scenario.objects.get(pk=upload.scenario_id)
            first, count = int(upload.params.get("first", 0)), int(upload.params.get("count", 0))
            if upload.params.get("stamp") != scenario.updated_at.isoformat():
                raise ScenarioInvalid("The scenario changed since this page was shown: reload it and edit again.")
            saved = scenario_objects.scenario_documents_replace(scenario=scenario, actor=actor, first=first, count=count,
                                                         text=upload.text, source=upload.source)
            warnings = scenario.not_simulated
            notices["notice"] = f"Documents {first + 1}–{first + count} saved ({saved} now)."
    except ScenarioInvalid as error:
        upload_fail(upload_id, error.message, where={"document": error.document, "kind": error.kind,
                                                     "name": error.name, "field": error.field})
        return
    except PermissionDenied as error:
        upload_fail(upload_id, str(error) or "Only the scenario's owner can change it.")
        return
    notices["not_simulated"] = not_simulated_lines(warnings)
    notices["references"] = reference_lines(warnings)
    notices["newer"] = newer_lines(warnings)
    ScenarioUpload.objects.filter(pk=upload_id).update(
        status=ScenarioUpload.DONE, scenario=scenario, notices=notices, text="", finished_at=timezone.now())


EDITS = ("config", "nodes", "pods")


def _edit_change(scenario: Scenario, actor: Actor, change: str, args: dict[str, Any]) -> str:
    """An `edit_later` change, run by the same service the editor's view runs for a small
    scenario; the line the page shows."""
    from playground.services import scenario_bulk, scenario_objects

    if change == "config":
        scenario_objects.scenario_config_save(scenario=scenario, actor=actor, config=args.get("config"))
        return "Scheduler configuration saved."
    if change == "nodes":
        created = scenario_bulk.scenario_nodes_add_bulk(
            scenario=scenario, actor=actor, count=int(args["count"]), prefix=str(args["prefix"]),
            zones=int(args["zones"]), template=scenario_bulk.NodeTemplate(**args["template"]))
        return f"{len(created)} nodes added."
    created = scenario_bulk.scenario_pods_add_batch(
        scenario=scenario, actor=actor, count=int(args["count"]), name=str(args["name"]),
        pod_template=args["pod_template"], with_replicaset=bool(args["with_replicaset"]))
    return f"{sum(1 for row in created if row.kind == 'Pod')} pods of {args['name']} added."


def _object_change(upload: ScenarioUpload, actor: Actor) -> tuple[Scenario, list[Any], str]:
    """An editor form's save or delete (`object_later`), or its other changes (`edit_later`), as
    the editor's view runs them for a small scenario: the scenario, the warnings of what it
    brought in, and the line the page shows."""
    from playground.services import scenario_objects

    scenario = Scenario.objects.get(pk=upload.scenario_id)
    params = upload.params
    if params.get("change") in EDITS:
        return scenario, [], _edit_change(scenario, actor, params["change"], params.get("args") or {})
    kind, label, object_id = str(params.get("kind", "")), str(params.get("label", "")), params.get("object_id")
    if params.get("delete"):
        try:
            scenario_objects.scenario_object_delete(scenario=scenario, actor=actor, object_id=int(object_id))
        except ScenarioInvalid as error:
            raise ScenarioInvalid(f"Cannot delete {label}: {error.message}", field=error.field, kind=error.kind,
                                  name=error.name, document=error.document) from None
        return scenario, [], f"{label} deleted."
    saved = scenario_objects.scenario_object_save(scenario=scenario, actor=actor, manifest=params.get("manifest") or {},
                                           object_id=int(object_id) if object_id is not None else None)
    return scenario, saved.not_simulated, f"{kind} {label} saved."
