"""The run page's cluster forms as the engine's live-action dicts."""

from __future__ import annotations

from typing import Any

from playground.services.runs.errors import FieldError, RunError

PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPS = ("cordon", "uncordon", "deleteNode")
# The node form's kubelet choices: the Ready status a setNodeCondition action sets.
NODE_CONDITION_OPS = {"readyFalse": "False", "readyUnknown": "Unknown", "readyTrue": "True"}
MAX_REPLICAS = 1000  # a Deployment's replicas in one scaleDeployment action


def scale_action_from_form(data: Any, deployments: list[str]) -> dict[str, Any]:
    """The scaleDeployment action for the run page's form: `deployment` ("namespace/name", one of
    `deployments`, the run's scalable Deployments) and `replicas` (0..MAX_REPLICAS). FieldError
    names the field that is wrong."""
    key = str(data.get("deployment", "") or "").strip()
    raw = str(data.get("replicas", "") or "").strip()
    if not key:
        raise FieldError("deployment", "Choose a Deployment.")
    if key not in deployments:
        known = ", ".join(deployments) or "none"
        raise FieldError("deployment", f"No Deployment {key!r} in this run (it has: {known}).")
    if not raw:
        raise FieldError("replicas", "How many replicas? A whole number from 0.")
    try:
        replicas = int(raw)
    except ValueError:
        raise FieldError("replicas", f"{raw!r} is not a whole number.") from None
    if not 0 <= replicas <= MAX_REPLICAS:
        raise FieldError("replicas", f"Replicas must be from 0 to {MAX_REPLICAS}, not {replicas}.")
    namespace, name = key.split("/", 1)
    return {"action": "scaleDeployment", "name": name, "namespace": namespace, "replicas": replicas}

# Each cluster form (by its `what`): the form's element id and the fields that can show an error.
FORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "addPod": ("form-add-pod", ("name", "cpu", "memory", "priorityClassName")),
    "deletePod": ("form-delete-pod", ("pod",)),
    "failBind": ("form-fail-bind", ("pod",)),
    "addNode": ("form-add-node", ("name", "cpu", "memory")),
    "node": ("form-node-op", ("node", "op")),
    "addTaint": ("form-taint", ("node", "key", "value", "effect")),
    "removeTaint": ("form-taint", ("node", "key", "value", "effect")),
    "setScoreWeight": ("form-score-weight", ("plugin", "weight")),
    "drainNode": ("form-drain", ("node", "timeout")),
}
# The drain form's checkboxes: kubectl drain's flags, by the action's field names.
DRAIN_FLAGS = ("ignoreDaemonSets", "deleteEmptyDirData", "force")


def cluster_action_from_form(data: Any) -> dict[str, Any]:
    """The engine's live-action dict for one of the run page's cluster forms (plain strings in).
    Missing values are refused here; the values themselves by `preflight` (the engine's rules),
    both with the form field they are about."""

    def text(name: str) -> str:
        return str(data.get(name, "") or "").strip()

    what = text("what")
    if what == "addPod":
        name = text("name")
        if not name:
            raise RunError("A pod needs a name.", field="name")
        requests = {k: v for k, v in (("cpu", text("cpu")), ("memory", text("memory"))) if v}
        spec: dict[str, Any] = {
            "containers": [
                {"name": "app", "image": PAUSE_IMAGE, "resources": {"requests": requests} if requests else {}}
            ]
        }
        if text("priorityClassName"):
            spec["priorityClassName"] = text("priorityClassName")
        return {
            "action": "addPod",
            "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec},
        }
    if what == "deletePod":
        if not text("pod"):
            raise RunError("Choose a pod to delete.", field="pod")
        return {"action": "deletePod", "pod": text("pod")}
    if what == "failBind":
        if not text("pod"):
            raise RunError("Choose the pod whose next binding fails.", field="pod")
        return {"action": "failBind", "pod": text("pod")}
    if what == "addNode":
        name = text("name")
        if not name:
            raise RunError("A node needs a name.", field="name")
        capacity = {"cpu": text("cpu") or "4", "memory": text("memory") or "8Gi", "pods": "110"}
        return {
            "action": "addNode",
            "node": {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                "status": {"capacity": capacity, "allocatable": capacity},
            },
        }
    if what == "node":
        op = text("op")
        if op not in NODE_OPS and op not in NODE_CONDITION_OPS:
            raise RunError("Choose what to do with the node.", field="op")
        if not text("node"):
            raise RunError("Choose a node.", field="node")
        if op in NODE_CONDITION_OPS:
            return {"action": "setNodeCondition", "node": text("node"), "status": NODE_CONDITION_OPS[op]}
        return {"action": op, "node": text("node")}
    if what == "addTaint":
        if not text("node"):
            raise RunError("A taint needs a node.", field="node")
        if not text("key"):
            raise RunError("A taint needs a key.", field="key")
        if text("effect") not in TAINT_EFFECTS:
            raise RunError("Choose the taint's effect.", field="effect")
        taint = {"key": text("key"), "effect": text("effect")}
        if text("value"):
            taint["value"] = text("value")
        return {"action": "addTaint", "node": text("node"), "taint": taint}
    if what == "removeTaint":
        if not text("node"):
            raise RunError("Removing a taint needs the node.", field="node")
        if not text("key"):
            raise RunError("Removing a taint needs the taint's key.", field="key")
        return {"action": "removeTaint", "node": text("node"), "key": text("key")}
    if what == "drainNode":
        return _drain_action(data, text)
    if what == "runDescheduler":
        return {"action": "runDescheduler"}
    if what == "setScoreWeight":
        if not text("plugin"):
            raise RunError("Choose a Score plugin.", field="plugin")
        try:
            weight = int(text("weight"))
        except ValueError:
            raise RunError("The weight must be a whole number from 1 to 100.", field="weight") from None
        return {"action": "setScoreWeight", "plugin": text("plugin"), "weight": weight}
    from scheduler_core.actions.registry import actions

    spec = actions().get(what)
    if spec is not None and what in FORMS:
        # A form entry of an action kind without a builder above: its fields as typed (strings),
        # which the action's own parser then checks (docs/architecture.md, "A cluster action").
        return {"action": what, **{field: text(field) for field in spec.fields if text(field)}}
    raise RunError("Unknown cluster action.")


def _drain_action(data: Any, text: Any) -> dict[str, Any]:
    """`kubectl drain <node> [--ignore-daemonsets] [--delete-emptydir-data] [--force]
    [--timeout=<s>]` as a drainNode action (scheduler_core/actions/drain_node.py); an empty
    timeout takes the engine's bounded default."""
    if not text("node"):
        raise RunError("Choose the node to drain.", field="node")
    action: dict[str, Any] = {"action": "drainNode", "node": text("node")}
    action.update({flag: True for flag in DRAIN_FLAGS if text(flag)})
    if text("timeout"):
        try:
            action["timeout"] = int(text("timeout"))
        except ValueError:
            raise RunError("The timeout must be a whole number of seconds.", field="timeout") from None
    return action
