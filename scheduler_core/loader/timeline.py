"""The playground's Timeline document and live run actions, validated like the objects they
carry, and replayed on names so every action refers to something that exists at its time."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from typing import Any

from scheduler_core.api.errors import LoadWarning, ScenarioError
from scheduler_core.api.scenario import Scenario, TimelineAction
from scheduler_core.api.types import DEFAULT_SCHEDULER_NAME, Node, Pod
from scheduler_core.api.uid import stable_uid
from scheduler_core.api.validation import label_value_error, qualified_name_error
from scheduler_core.loader.admission import PriorityAdmission
from scheduler_core.loader.nodes import parse_node, parse_taint
from scheduler_core.loader.pods import parse_pod
from scheduler_core.loader.reader import FieldReader, Location, type_name
from scheduler_core.loader.strict import NotSimulated, check_object, object_identity

__all__ = ["parse_timeline", "parse_action", "TIMELINE_ACTIONS"]

TIMELINE_ACTIONS = ("addPod", "deletePod", "addNode", "deleteNode", "cordon", "uncordon",
                    "addTaint", "removeTaint", "setNodeLabels", "setScoreWeight",
                    "scaleDeployment", "failBind", "setNodeCondition",
                    "runDescheduler")
# The fields each action may have besides `at` and `action`.
_ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "addPod": ("pod",), "deletePod": ("pod",), "addNode": ("node",), "deleteNode": ("node",),
    "cordon": ("node",), "uncordon": ("node",), "addTaint": ("node", "taint"),
    "removeTaint": ("node", "key", "effect"), "setNodeLabels": ("node", "labels"),
    "setScoreWeight": ("plugin", "weight", "profile"),
    "scaleDeployment": ("name", "namespace", "replicas"),
    "failBind": ("pod", "message"),
    "setNodeCondition": ("node", "type", "status"),
    "runDescheduler": (),
}
# What the API server answers a binding a failBind action refuses (its timeout filter's words).
DEFAULT_BIND_FAILURE = "Timeout: request did not complete within requested timeout - context deadline exceeded"
MAX_BIND_FAILURE_MESSAGE = 1024


def _pod_ref(r: FieldReader, obj: Any, path: str) -> str:
    """`ns/name` or `name` (namespace default) -> `ns/name`."""
    ref = r.string(obj, path)
    if not ref:
        raise r.err(path, "Required value")
    ns, _, name = ref.rpartition("/")
    return f"{ns or 'default'}/{name}"


def parse_timeline(r: FieldReader, obj: dict[str, Any], admission: PriorityAdmission,
                   sc: Scenario, base_index: int, check: bool = True,
                   notes: NotSimulated | None = None,
                   deployments: Collection[str] = ()) -> list[TimelineAction]:
    """The Timeline document's actions in time order (stable for equal times). Pods and nodes
    the actions add are checked as strictly as top-level ones; with `check`, actions are
    replayed on names so each refers to an object that exists at its time (`deployments`:
    the "ns/name" of the scenario's Deployments, for scaleDeployment)."""
    notes = notes if notes is not None else NotSimulated()
    r.doc.name = None
    raw_actions = r.seq(obj.get("actions"), "actions")
    parsed: list[tuple[float, int, TimelineAction]] = []
    for i, a in enumerate(raw_actions):
        p = f"actions[{i}]"
        m = r.mapping(a, p, required=True)
        if m.get("at") is None:
            raise r.err(f"{p}.at", "Required value: the virtual time in seconds")
        at = r.number(m.get("at"), f"{p}.at")
        if at < 0:
            raise r.err(f"{p}.at", f"Invalid value: {at}: must be greater than or equal to 0")
        action = r.string(m.get("action"), f"{p}.action")
        if action not in TIMELINE_ACTIONS:
            raise r.err(f"{p}.action", f'Unsupported value: "{action}": supported values: '
                                       + ", ".join(f'"{x}"' for x in TIMELINE_ACTIONS))
        allowed_keys = {"at", "action", *_ACTION_FIELDS[action]}
        extra = sorted(str(k) for k in m if k not in allowed_keys)
        if extra:
            reason = f'unknown field for action "{action}"'
            close = difflib.get_close_matches(extra[0], sorted(allowed_keys), n=1, cutoff=0.7)
            if close:
                reason += f'; did you mean "{close[0]}"?'
            raise r.err(f"{p}.{extra[0]}", reason)
        params: dict[str, Any] = {}
        if action in ("addPod", "addNode"):
            key = "pod" if action == "addPod" else "node"
            manifest = r.mapping(m.get(key), f"{p}.{key}", required=True)
            sub = FieldReader(Location(r.doc.file, r.doc.index, "Pod" if key == "pod" else "Node"))
            sub_prefix = f"{p}.{key}"
            check_object(manifest, expected_kind := "Pod" if key == "pod" else "Node",
                         Location(r.doc.file, r.doc.index, expected_kind,
                                  object_identity(manifest, expected_kind)), notes, sub_prefix)
            try:
                if key == "pod":
                    params["pod"] = parse_pod(sub, manifest, base_index + i, admission,
                                              uid_salt=f"@timeline[{i}]")
                else:
                    params["node"] = parse_node(sub, manifest, base_index + i,
                                                uid_salt=f"@timeline[{i}]")
            except ScenarioError as exc:
                exc.field = f"{sub_prefix}.{exc.field}" if exc.field else sub_prefix
                exc.args = (str(exc),)
                raise
            kind = manifest.get("kind")
            expected = "Pod" if key == "pod" else "Node"
            if kind is not None and kind != expected:
                raise r.err(f"{p}.{key}.kind", f'Invalid value: "{kind}": expected {expected}')
        elif action == "deletePod":
            params["pod"] = _pod_ref(r, m.get("pod"), f"{p}.pod")
        elif action == "failBind":
            params["pod"] = _pod_ref(r, m.get("pod"), f"{p}.pod")
            message = r.string(m.get("message"), f"{p}.message") or DEFAULT_BIND_FAILURE
            if len(message) > MAX_BIND_FAILURE_MESSAGE:
                raise r.err(f"{p}.message", f"Too long: may not be more than {MAX_BIND_FAILURE_MESSAGE} characters")
            params["message"] = message
        elif action == "scaleDeployment":
            params.update(_scale_params(r, m, p))
        elif action == "runDescheduler":
            pass  # one pass of the scenario's DeschedulerPolicy (checked once the scenario is built)
        elif action == "setScoreWeight":
            plugin = r.string(m.get("plugin"), f"{p}.plugin")
            if not plugin:
                raise r.err(f"{p}.plugin", "Required value: a Score plugin's name")
            if m.get("weight") is None:
                raise r.err(f"{p}.weight", "Required value")
            weight = r.integer(m.get("weight"), f"{p}.weight")
            if not 1 <= weight <= 100:
                raise r.err(f"{p}.weight", f"Invalid value: {weight}: must be between 1 and 100")
            params.update(plugin=plugin, weight=weight,
                          profile=r.string(m.get("profile"), f"{p}.profile") or DEFAULT_SCHEDULER_NAME)
        else:
            node = r.string(m.get("node"), f"{p}.node")
            if not node:
                raise r.err(f"{p}.node", "Required value")
            params["node"] = node
            if action == "addTaint":
                params["taint"] = parse_taint(r, m.get("taint"), f"{p}.taint")
            elif action == "removeTaint":
                key = r.string(m.get("key"), f"{p}.key")
                if not key:
                    raise r.err(f"{p}.key", "Required value")
                params["key"] = key
                effect = r.string(m.get("effect"), f"{p}.effect")
                if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                    raise r.err(f"{p}.effect", f'Unsupported value: "{effect}": supported '
                                               'values: "NoSchedule", "PreferNoSchedule", '
                                               '"NoExecute"')
                params["effect"] = effect or None
            elif action == "setNodeCondition":
                ctype = r.string(m.get("type"), f"{p}.type") or "Ready"
                if ctype != "Ready":
                    raise r.err(f"{p}.type", f'Unsupported value: "{ctype}": supported values: "Ready"')
                raw = m.get("status")
                # An unquoted YAML True/False is a boolean: read it as the status it spells.
                status = ("True" if raw else "False") if isinstance(raw, bool) else r.string(raw, f"{p}.status")
                if status not in ("True", "False", "Unknown"):
                    raise r.err(f"{p}.status", f'Unsupported value: "{status}": supported values: '
                                               '"True", "False", "Unknown"')
                params["status"] = status
            elif action == "setNodeLabels":
                lm = r.mapping(m.get("labels"), f"{p}.labels", required=True)
                labels: dict[str, str | None] = {}
                for k, v in lm.items():
                    if not isinstance(k, str):
                        raise r.err(f"{p}.labels", f"keys must be strings, got {k!r}")
                    err = qualified_name_error(k)
                    if err:
                        raise r.err(f"{p}.labels", f'Invalid value: "{k}": {err}')
                    if v is not None:
                        v = r.string(v, f"{p}.labels.{k}")
                        err = label_value_error(v)
                        if err:
                            raise r.err(f"{p}.labels.{k}", f'Invalid value: "{v}": {err}')
                    labels[k] = v
                params["labels"] = labels
        parsed.append((at, i, TimelineAction(time=at, action=action, params=params)))
    parsed.sort(key=lambda t: (t[0], t[1]))
    # Identities follow the (stable) time order, so a dumped and reloaded timeline is equal.
    for pos, (_, _, act) in enumerate(parsed):
        obj = act.params.get("pod") if act.action == "addPod" else act.params.get("node")
        if isinstance(obj, Pod):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Pod", obj.namespace, obj.name, f"@timeline[{pos}]")
        elif isinstance(obj, Node):
            obj.creation_index = base_index + pos
            obj.uid = stable_uid("Node", "", obj.name, f"@timeline[{pos}]")
    if check:
        _check_timeline(r, parsed, sc, set(deployments))
    return [t[2] for t in parsed]


def _scale_params(r: FieldReader, m: dict[str, Any], p: str) -> dict[str, Any]:
    """scaleDeployment: the Deployment's `name`, `namespace` (default "default") and the new
    `replicas`, a non-negative integer as in the Deployment's spec."""
    name = r.string(m.get("name"), f"{p}.name")
    if not name:
        raise r.err(f"{p}.name", "Required value: the Deployment's name")
    namespace = r.string(m.get("namespace"), f"{p}.namespace") or "default"
    if m.get("replicas") is None:
        raise r.err(f"{p}.replicas", "Required value")
    replicas = r.integer(m.get("replicas"), f"{p}.replicas")
    if replicas < 0:
        raise r.err(f"{p}.replicas", f"Invalid value: {replicas}: must be greater than or equal to 0")
    return {"name": name, "namespace": namespace, "replicas": replicas}


def parse_action(obj: dict[str, Any], scenario: Scenario, at: float = 0.0, index: int = 0,
                 source: str = "<action>") -> TimelineAction:
    """One live action (a Timeline action mapping without `at`, e.g. {"action": "addPod",
    "pod": {...}}) validated exactly as a timeline action, with the scenario's PriorityClasses
    for admission. Whether the pod or node it names exists is the engine's check at apply time.
    `index` makes the created object's uid/creation_index unique within the run."""
    r = FieldReader(Location(source, 1, "Timeline"))
    if not isinstance(obj, dict):
        raise r.err(None, f"expected an action (a mapping), got {type_name(obj)}")
    admission = PriorityAdmission(scenario.priority_classes, scenario.disabled_admission_plugins)
    base = len(scenario.nodes) + len(scenario.pods) + len(scenario.timeline) + index
    acts = parse_timeline(r, {"actions": [{**obj, "at": at}]}, admission, Scenario(), base, check=False)
    act = acts[0]
    target = act.params.get("pod") if act.action == "addPod" else act.params.get("node")
    if isinstance(target, (Pod, Node)):
        kind = "Pod" if isinstance(target, Pod) else "Node"
        target.uid = stable_uid(kind, getattr(target, "namespace", ""), target.name, f"@action[{index}]")
    return act


def _check_timeline(r: FieldReader, parsed: list[tuple[float, int, TimelineAction]],
                    sc: Scenario, deployments: set[str]) -> None:
    """Replay the actions on names only: objects must exist when an action refers to them.
    (The pods a scaleDeployment creates are named at run time, so they are not tracked.)"""
    nodes = {n.name for n in sc.nodes}
    pods = {p.key for p in sc.pods}
    for _, i, act in parsed:
        p = f"actions[{i}]"
        a = act.action
        if a == "scaleDeployment":
            key = f"{act.params['namespace']}/{act.params['name']}"
            if key not in deployments:
                raise r.err(f"{p}.name", f'Deployment "{key}" does not exist in the scenario')
        elif a in ("setScoreWeight", "runDescheduler"):
            continue
        elif a == "addPod":
            pod = act.params["pod"]
            if pod.key in pods:
                raise r.err(f"{p}.pod", f'pod "{pod.key}" already exists at t={act.time:g}')
            if pod.node_name and pod.node_name not in nodes:
                # The API server accepts a pod bound to any node name (docs/loader-references.md).
                sc.warnings.append(LoadWarning(
                    f'node "{pod.node_name}" does not exist at t={act.time:g}; the API server accepts '
                    "the binding, and the scheduler never schedules the pod (it is assigned) and "
                    "counts it on no node until a node of that name is added",
                    file=r.doc.file, document=r.doc.index, kind=r.doc.kind, name=r.doc.name,
                    field=f"{p}.pod.spec.nodeName", category="reference"))
            pods.add(pod.key)
        elif a == "deletePod":
            key = act.params["pod"]
            if key not in pods:
                raise r.err(f"{p}.pod", f'pod "{key}" does not exist at t={act.time:g}')
            pods.discard(key)
        elif a == "failBind":
            if act.params["pod"] not in pods:
                raise r.err(f"{p}.pod", f'pod "{act.params["pod"]}" does not exist at t={act.time:g}')
        elif a == "addNode":
            node = act.params["node"]
            if node.name in nodes:
                raise r.err(f"{p}.node", f'node "{node.name}" already exists at t={act.time:g}')
            nodes.add(node.name)
        else:
            name = act.params["node"]
            if name not in nodes:
                raise r.err(f"{p}.node", f'node "{name}" does not exist at t={act.time:g}')
            if a == "deleteNode":
                nodes.discard(name)
