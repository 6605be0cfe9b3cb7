"""The extender wire format: upstream's `k8s.io/kube-scheduler/extender/v1` objects as Go's
encoding/json writes them (pods and nodes as an apiserver-backed informer hands them over), and
enough of Go's decoding to read answers the way upstream does (case-insensitive keys, the first
JSON value only, Go's type errors).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from scheduler_core.api.export import node_manifest, pod_manifest
from scheduler_core.api.types import Node, Pod
from scheduler_core.extender.transcript import ExtenderError

if TYPE_CHECKING:

    pass


def pod_wire(p: Pod) -> dict[str, Any]:
    """The Pod as Go's json.Marshal of an informer's v1.Pod: no kind/apiVersion (informer objects
    carry no TypeMeta), metadata with uid, and the status the scheduler sees."""
    d = pod_manifest(p)
    d.pop("apiVersion", None)
    d.pop("kind", None)
    meta = d["metadata"]
    meta["uid"] = p.uid
    meta.setdefault("namespace", p.namespace)
    status: dict[str, Any] = {"phase": "Running" if p.node_name else (p.phase or "Pending")}
    if p.nominated_node_name:
        status["nominatedNodeName"] = p.nominated_node_name
    d["status"] = status
    return d


def node_wire(n: Node) -> dict[str, Any]:
    """The Node as Go's json.Marshal of an informer's v1.Node (uid, capacity and allocatable)."""
    d = node_manifest(n)
    d.pop("apiVersion", None)
    d.pop("kind", None)
    d["metadata"]["uid"] = n.uid
    status = d.setdefault("status", {})
    if "allocatable" not in status:
        status["allocatable"] = dict(status.get("capacity") or {})
    return d


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class _LongNumber:
    """A JSON integer literal too long for Python's int conversion (over 4,300 digits), kept as
    its text: Go's decoder refuses it for any integer field, naming the literal."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _parse_int(text: str) -> int | _LongNumber:
    return int(text) if len(text) <= 4300 else _LongNumber(text)


def _json_type(v: Any) -> str:
    if isinstance(v, _LongNumber):
        return "number"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def _decode_first_value(body: str) -> Any:
    """The first JSON value of the body (json.Decoder.Decode ignores what follows it)."""
    text = body.lstrip(" \t\r\n")
    if not text:
        raise ExtenderError("EOF")
    try:
        value, _ = json.JSONDecoder(parse_int=_parse_int).raw_decode(text)
    except json.JSONDecodeError as e:
        if e.pos >= len(text):
            raise ExtenderError("unexpected EOF") from None
        ch = text[e.pos]
        if e.msg.startswith("Expecting value") and e.pos == 0:
            raise ExtenderError(f"invalid character {_go_char(ch)} looking for beginning of value") from None
        raise ExtenderError(f"invalid character {_go_char(ch)} in JSON ({e.msg} at offset {e.pos})") from None
    return value


def _go_char(ch: str) -> str:
    return "'\\''" if ch == "'" else f"'{ch}'"


def _fields(obj: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Struct fields from a JSON object: exact key or case-insensitive match, later keys win."""
    lower = {n.lower(): n for n in names}
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if k in names:
            out[k] = v
        elif k.lower() in lower:
            out[lower[k.lower()]] = v
    return out


def _want(v: Any, kind: type, where: str, gotype: str) -> Any:
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
        raise ExtenderError(f"json: cannot unmarshal {_json_type(v)} into Go struct field {where} of type {gotype}")
    return v


def _int64(v: Any, where: str) -> int:
    if isinstance(v, float):
        raise ExtenderError(f"json: cannot unmarshal number {v!r} into Go struct field {where} of type int64")
    if isinstance(v, _LongNumber) or (isinstance(v, int) and not isinstance(v, bool)
                                      and not -(2**63) <= v < 2**63):  # past int64, as Go refuses
        shown = v.text if isinstance(v, _LongNumber) else str(v)
        raise ExtenderError(f"json: cannot unmarshal number {shown} into Go struct field {where} of type int64")
    return _want(v, int, where, "int64")


def _struct(v: Any, type_name: str) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ExtenderError(f"json: cannot unmarshal {_json_type(v)} into Go value of type {type_name}")
    return v


def _string_map(v: Any, where: str) -> dict[str, str] | None:
    if v is None:
        return None
    _want(v, dict, where, "v1.FailedNodesMap")
    out: dict[str, str] = {}
    for k, s in v.items():
        if s is None:
            s = ""
        out[k] = _want(s, str, where, "string")
    return out
