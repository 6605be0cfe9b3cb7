"""Scheduler extenders over HTTP (upstream pkg/scheduler/extender.go, plus the extender parts of
schedule_one.go and preemption.go), with a transcript that makes runs reproducible.

An extender is a web service the scheduler consults at four points of a pod's cycle:

- filter: after the Filter plugins, with the feasible nodes; it answers which nodes pass and why
  the others failed (Unschedulable, or UnschedulableAndUnresolvable);
- prioritize: after the Score plugins; its 0..10 scores are scaled to the plugins' 0..100 range
  and multiplied by the extender's weight;
- preempt: after the preemption dry run, with the candidate nodes and their victims; it may drop
  nodes or victims;
- bind: instead of the Bind plugins, when it is the binder.

The wire format is upstream's `k8s.io/kube-scheduler/extender/v1` types encoded by Go's
encoding/json: struct field names are the JSON keys ("Pod", "NodeNames", "FailedNodes", ...),
decoding accepts keys case-insensitively and only reads the first JSON value of a response.

Determinism: an HTTP service is outside the engine, so every call made while a run RECORDS goes
into an `ExtenderTranscript` (request digest, status code, body or transport error, latency). A
run given that transcript in REPLAY mode answers every call from it and makes no HTTP call; the
same scenario, seed and actions then give exactly the same run, including in shared links. The
transcript is part of the engine state (checkpoints keep it) and exports as plain JSON.
"""

from __future__ import annotations

import copy
import hashlib
import json
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scheduler_core.api.export import node_manifest, pod_manifest
from scheduler_core.api.types import Node, Pod
from scheduler_core.config.types import Extender, KubeSchedulerConfiguration
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo

if TYPE_CHECKING:
    from scheduler_core.framework.preemption.preemption import Victims
    from scheduler_core.framework.runtime.framework import NodePluginScores
    from scheduler_core.scheduler import Scheduler

__all__ = [
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "EXTENDER_NAME",
    "ExtenderError",
    "ExtenderCall",
    "ExtenderTranscript",
    "HTTPExtender",
    "build_extenders",
    "effective_config",
    "apply_extender_scores",
    "pod_wire",
    "node_wire",
]

MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
# The fake plugin name put in a pod's unschedulable plugins when extenders rejected nodes.
EXTENDER_NAME = "Extender"

RECORD = "record"
REPLAY = "replay"


class ExtenderError(Exception):
    """An extender call failed; the message is the error text upstream would report."""


# --------------------------------------------------------------------------------------------
# Transcript


class ExtenderCall:
    """One HTTP exchange with an extender, as recorded.

    `status` and `body` are what the service answered (any status, any bytes: decoding happens
    again on replay, so a bad answer fails the same way); `error` is a transport failure
    (unreachable, timeout) instead. `latency_ms` is wall time, kept for display only."""

    __slots__ = ("extender", "verb", "digest", "status", "body", "error", "latency_ms")

    def __init__(self, extender: str, verb: str, digest: str, status: int | None = None,
                 body: str | None = None, error: str | None = None, latency_ms: float = 0.0) -> None:
        self.extender = extender
        self.verb = verb
        self.digest = digest
        self.status = status
        self.body = body
        self.error = error
        self.latency_ms = latency_ms

    def __getstate__(self) -> dict[str, Any]:
        return self.to_json()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k in self.__slots__:
            setattr(self, k, state.get(k, 0.0 if k == "latency_ms" else None))

    def to_json(self) -> dict[str, Any]:
        return {"extender": self.extender, "verb": self.verb, "digest": self.digest, "status": self.status,
                "body": self.body, "error": self.error, "latency_ms": self.latency_ms}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExtenderCall:
        return cls(str(d["extender"]), str(d["verb"]), str(d["digest"]), d.get("status"), d.get("body"),
                   d.get("error"), float(d.get("latency_ms") or 0.0))

    def __repr__(self) -> str:
        what = self.error if self.error is not None else f"{self.status} {len(self.body or '')}B"
        return f"ExtenderCall({self.extender} {self.verb} {self.digest[:8]}: {what})"


class ExtenderTranscript:
    """The recorded extender calls of a run, and how the run uses them.

    mode "record" (default): a call first looks for an unused recorded call with the same
    extender, verb and request digest (so a transcript that already holds calls replays them and
    records only what is new), otherwise it goes over HTTP and is appended.
    mode "replay": no HTTP at all; a call the transcript does not hold fails with a clear error
    (handled like any extender error: skipped for ignorable extenders, otherwise the cycle fails).
    Identical requests are answered by their recordings in recording order."""

    def __init__(self, calls: Iterable[ExtenderCall] = (), mode: str = RECORD) -> None:
        if mode not in (RECORD, REPLAY):
            raise ValueError(f"extender transcript mode must be {RECORD!r} or {REPLAY!r}, not {mode!r}")
        self.mode = mode
        self.calls: list[ExtenderCall] = list(calls)
        self._used: dict[tuple[str, str, str], int] = {}  # key -> how many recordings were used

    def lookup(self, extender: str, verb: str, digest: str) -> ExtenderCall | None:
        key = (extender, verb, digest)
        skip = self._used.get(key, 0)
        for c in self.calls:
            if c.extender == extender and c.verb == verb and c.digest == digest:
                if skip == 0:
                    self._used[key] = self._used.get(key, 0) + 1
                    return c
                skip -= 1
        return None

    def record(self, call: ExtenderCall) -> None:
        self.calls.append(call)
        key = (call.extender, call.verb, call.digest)
        self._used[key] = self._used.get(key, 0) + 1

    def to_json(self) -> list[dict[str, Any]]:
        """Plain JSON (what the web app stores next to a run's event log)."""
        return [c.to_json() for c in self.calls]

    @classmethod
    def from_json(cls, data: Iterable[dict[str, Any]], mode: str = REPLAY) -> ExtenderTranscript:
        return cls([ExtenderCall.from_json(d) for d in data], mode=mode)

    def __len__(self) -> int:
        return len(self.calls)

    def __repr__(self) -> str:
        return f"ExtenderTranscript(mode={self.mode!r}, calls={len(self.calls)})"


# --------------------------------------------------------------------------------------------
# Wire objects (what an apiserver-backed informer hands the scheduler, JSON-encoded)


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


# --------------------------------------------------------------------------------------------
# Decoding answers the way Go's encoding/json does (enough of it)


def _json_type(v: Any) -> str:
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
        value, _ = json.JSONDecoder().raw_decode(text)
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


# --------------------------------------------------------------------------------------------
# The HTTP extender


class HTTPExtender:
    """One configured extender (upstream HTTPExtender). Its name is its urlPrefix."""

    def __init__(self, cfg: Extender, transcript: ExtenderTranscript, sched: Scheduler | None = None) -> None:
        self.url_prefix = cfg.url_prefix
        self.filter_verb = cfg.filter_verb
        self.prioritize_verb = cfg.prioritize_verb
        self.preempt_verb = cfg.preempt_verb
        self.bind_verb = cfg.bind_verb
        self.weight = cfg.weight
        self.enable_https = cfg.enable_https
        self.http_timeout = cfg.http_timeout
        self.node_cache_capable = cfg.node_cache_capable
        self.managed_resources = frozenset(r["name"] for r in cfg.managed_resources)
        self.ignorable = cfg.ignorable
        self.transcript = transcript
        self.sched = sched
        self._last_replayed = False

    # ---- what it does ------------------------------------------------------------------------
    def name(self) -> str:
        return self.url_prefix

    def is_ignorable(self) -> bool:
        return self.ignorable

    def is_filter(self) -> bool:
        return self.filter_verb != ""

    def is_prioritizer(self) -> bool:
        return self.prioritize_verb != ""

    def is_binder(self) -> bool:
        return self.bind_verb != ""

    def supports_preemption(self) -> bool:
        return self.preempt_verb != ""

    def is_interested(self, pod: Pod) -> bool:
        """True when it manages no resources, or a container or init container of the pod
        requests or limits one it manages."""
        if not self.managed_resources:
            return True
        for c in (*pod.containers, *pod.init_containers):
            if any(r in self.managed_resources for r in c.requests):
                return True
            if any(r in self.managed_resources for r in c.limits):
                return True
        return False

    def __repr__(self) -> str:
        return f"HTTPExtender({self.url_prefix!r})"

    # ---- filter ------------------------------------------------------------------------------
    def filter(self, pod: Pod, nodes: list[NodeInfo]
               ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str], str | None]:
        """(feasible nodes, failed, failedAndUnresolvable, error). Nodes the answer lists in full
        (not nodeCacheCapable) come back as new NodeInfos holding only the returned Node, as
        upstream builds them."""
        if not self.filter_verb:
            return nodes, {}, {}, None
        by_name = {ni.name: ni for ni in nodes}
        sent: dict[str, dict[str, Any]] = {}
        if self.node_cache_capable:
            args = {"Pod": pod_wire(pod), "Nodes": None, "NodeNames": [ni.name for ni in nodes]}
        else:
            items = []
            for ni in nodes:
                assert ni.node is not None
                w = node_wire(ni.node)
                sent[ni.name] = w
                items.append(w)
            args = {"Pod": pod_wire(pod), "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}
        call = None
        try:
            raw, call = self._send("filter", self.filter_verb, args)
            res = _fields(_struct(raw, "v1.ExtenderFilterResult"),
                          ("Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"))
            err = res.get("Error")
            if err is not None:
                _want(err, str, "ExtenderFilterResult.Error", "string")
            if err:
                raise ExtenderError(err)
            failed = _string_map(res.get("FailedNodes"), "ExtenderFilterResult.FailedNodes") or {}
            unresolvable = _string_map(res.get("FailedAndUnresolvableNodes"),
                                       "ExtenderFilterResult.FailedAndUnresolvableNodes") or {}
            result: list[NodeInfo] = []
            names = res.get("NodeNames")
            if self.node_cache_capable and names is not None:
                _want(names, list, "ExtenderFilterResult.NodeNames", "[]string")
                for n in names:
                    _want(n, str, "ExtenderFilterResult.NodeNames", "string")
                    ni = by_name.get(n)
                    if ni is None:
                        raise ExtenderError(f'extender "{self.url_prefix}" claims a filtered node "{n}" '
                                            "which is not found in the input node list")
                    result.append(ni)
            elif res.get("Nodes") is not None:
                result = self._nodes_from_list(res["Nodes"], by_name, sent)
        except ExtenderError as e:
            self._emit("filter", pod, getattr(e, "call", call), error=str(e))
            return [], {}, {}, str(e)
        if self._emitting():
            kept = {ni.name for ni in result}
            self._emit("filter", pod, call, changed={
                "removed": [ni.name for ni in nodes if ni.name not in kept],
                "failed": failed, "failedAndUnresolvable": unresolvable,
                "passed": [ni.name for ni in result]})
        return result, failed, unresolvable, None

    def _nodes_from_list(self, node_list: Any, by_name: dict[str, NodeInfo],
                         sent: dict[str, dict[str, Any]]) -> list[NodeInfo]:
        from scheduler_core.api.errors import ScenarioError
        from scheduler_core.api.loader import _Doc, _Reader, parse_node

        lst = _fields(_want(node_list, dict, "ExtenderFilterResult.Nodes", "v1.NodeList"), ("items",))
        items = lst.get("items")
        if items is None:
            return []
        _want(items, list, "ExtenderFilterResult.Nodes.items", "[]v1.Node")
        out: list[NodeInfo] = []
        for item in items:
            _want(item, dict, "ExtenderFilterResult.Nodes.items", "v1.Node")
            meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
            name = meta.get("name")
            orig = by_name.get(name) if isinstance(name, str) else None
            if orig is None:
                # Upstream would take the node as it is; a node the scheduler does not know cannot
                # be scored or bound here, so it is an error with a clear message instead.
                raise ExtenderError(f'extender "{self.url_prefix}" claims a filtered node "{name}" '
                                    "which is not found in the input node list")
            assert orig.node is not None
            if item == sent.get(name):
                node = orig.node
            else:
                try:
                    node = parse_node(_Reader(_Doc(f"extender {self.url_prefix}", None, "Node", name)),
                                      item, orig.node.creation_index)
                except ScenarioError as e:
                    raise ExtenderError(f'extender "{self.url_prefix}" returned an invalid node "{name}": '
                                        f"{e}") from None
                node.uid = orig.node.uid
            # Upstream: framework.NewNodeInfo() + SetNode(returned node): no pods, no image states.
            out.append(NodeInfo(node))
        return out

    # ---- prioritize ----------------------------------------------------------------------------
    def prioritize(self, pod: Pod, nodes: list[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """([(host, score)], weight); raises ExtenderError. Without a prioritize verb every node
        gets 0 with weight 0 (and no HTTP call), as upstream."""
        if not self.prioritize_verb:
            return [(ni.name, 0) for ni in nodes], 0
        if self.node_cache_capable:
            args = {"Pod": pod_wire(pod), "Nodes": None, "NodeNames": [ni.name for ni in nodes]}
        else:
            args = {"Pod": pod_wire(pod), "Nodes": {"metadata": {}, "items": [node_wire(ni.node) for ni in nodes]},
                    "NodeNames": None}
        call = None
        try:
            raw, call = self._send("prioritize", self.prioritize_verb, args)
            if raw is None:
                raw = []
            if not isinstance(raw, list):
                raise ExtenderError(f"json: cannot unmarshal {_json_type(raw)} into Go value of type "
                                    "v1.HostPriorityList")
            out: list[tuple[str, int]] = []
            for hp in raw:
                f = _fields(_struct(hp, "v1.HostPriority"), ("Host", "Score"))
                host = f.get("Host")
                host = "" if host is None else _want(host, str, "HostPriority.Host", "string")
                score = f.get("Score")
                score = 0 if score is None else _int64(score, "HostPriority.Score")
                out.append((host, score))
        except ExtenderError as e:
            self._emit("prioritize", pod, getattr(e, "call", call), error=str(e))
            raise
        if self._emitting():
            factor = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
            self._emit("prioritize", pod, call, changed={
                "scores": {h: s for h, s in out},
                "weighted": {h: s * self.weight * factor for h, s in out}, "weight": self.weight})
        return out, self.weight

    # ---- preempt ----------------------------------------------------------------------------------
    def process_preemption(self, pod: Pod, victims_map: dict[str, Victims]) -> dict[str, Victims]:
        """The candidates (node -> victims) this extender accepts; raises ExtenderError."""
        from scheduler_core.framework.preemption.preemption import Victims

        if not self.preempt_verb:
            raise ExtenderError(f"preempt verb is not defined for extender {self.url_prefix} but run into "
                                "ProcessPreemption")
        if self.node_cache_capable:
            args = {"Pod": pod_wire(pod), "NodeNameToVictims": None,
                    "NodeNameToMetaVictims": {n: {"Pods": [{"UID": p.uid} for p in v.pods],
                                                  "NumPDBViolations": v.num_pdb_violations}
                                              for n, v in victims_map.items()}}
        else:
            args = {"Pod": pod_wire(pod), "NodeNameToMetaVictims": None,
                    "NodeNameToVictims": {n: {"Pods": [pod_wire(p) for p in v.pods],
                                              "NumPDBViolations": v.num_pdb_violations}
                                          for n, v in victims_map.items()}}
        call = None
        try:
            raw, call = self._send("preempt", self.preempt_verb, args)
            res = _fields(_struct(raw, "v1.ExtenderPreemptionResult"), ("NodeNameToMetaVictims",))
            meta = res.get("NodeNameToMetaVictims")
            out: dict[str, Victims] = {}
            if meta is not None:
                _want(meta, dict, "ExtenderPreemptionResult.NodeNameToMetaVictims", "map[string]*v1.MetaVictims")
                for node_name, mv in meta.items():
                    out[node_name] = self._to_victims(node_name, mv, Victims)
        except ExtenderError as e:
            self._emit("preempt", pod, getattr(e, "call", call), error=str(e))
            raise
        if self._emitting():
            trimmed: dict[str, list[str]] = {}
            for n, v in victims_map.items():
                if n in out:
                    kept = {p.uid for p in out[n].pods}
                    gone = [p.key for p in v.pods if p.uid not in kept]
                    if gone:
                        trimmed[n] = gone
            self._emit("preempt", pod, call, changed={
                "removed_nodes": [n for n in victims_map if n not in out],
                "removed_victims": trimmed,
                "candidates": {n: [p.key for p in v.pods] for n, v in out.items()}})
        return out

    def _to_victims(self, node_name: str, mv: Any, victims_cls: type) -> Victims:
        where = "ExtenderPreemptionResult.NodeNameToMetaVictims"
        f = _fields(_struct(mv, "v1.MetaVictims"), ("Pods", "NumPDBViolations"))
        snap = self.sched.snapshot if self.sched is not None else None
        ni = snap.get(node_name) if snap is not None else None
        if ni is None:
            raise ExtenderError(f'nodeinfo not found for node name "{node_name}"')
        pdb = f.get("NumPDBViolations")
        pdb = 0 if pdb is None else _int64(pdb, "MetaVictims.NumPDBViolations")
        pods: list[Pod] = []
        metas = f.get("Pods")
        if metas is not None:
            _want(metas, list, f"{where}.Pods", "[]*v1.MetaPod")
            for mp in metas:
                uid = _fields(_struct(mp, "v1.MetaPod"), ("UID",)).get("UID")
                uid = "" if uid is None else _want(uid, str, "MetaPod.UID", "string")
                found = next((pi.pod for pi in ni.pods if pi.pod.uid == uid), None)
                if found is None:
                    raise ExtenderError(f"extender: {self.url_prefix} claims to preempt pod (UID: &{{{uid}}}) "
                                        f"on node: {node_name}, but the pod is not found on that node")
                pods.append(found)
        return victims_cls(pods, pdb)

    # ---- bind --------------------------------------------------------------------------------------
    def bind(self, pod: Pod, host: str) -> str | None:
        """None when the extender bound the pod, else the error text."""
        if not self.bind_verb:
            return "unexpected empty bindVerb in extender"
        args = {"PodName": pod.name, "PodNamespace": pod.namespace, "PodUID": pod.uid, "Node": host}
        call = None
        try:
            raw, call = self._send("bind", self.bind_verb, args)
            res = _fields(_struct(raw, "v1.ExtenderBindingResult"), ("Error",))
            err = res.get("Error")
            if err is not None:
                _want(err, str, "ExtenderBindingResult.Error", "string")
            if err:
                raise ExtenderError(err)
        except ExtenderError as e:
            self._emit("bind", pod, getattr(e, "call", call), error=str(e))
            return str(e)
        self._emit("bind", pod, call, changed={"node": host})
        return None

    # ---- transport -------------------------------------------------------------------------------
    def url_for(self, verb: str) -> str:
        return self.url_prefix.rstrip("/") + "/" + verb

    def _send(self, role: str, verb: str, args: dict[str, Any]) -> tuple[Any, ExtenderCall]:
        """POST args as JSON to urlPrefix/verb (or answer from the transcript) and decode the
        first JSON value of a 200 answer. Raises ExtenderError with upstream's texts."""
        body = _canonical(args)
        digest = hashlib.sha256(body).hexdigest()[:32]
        call = self.transcript.lookup(self.url_prefix, role, digest)
        if call is None:
            if self.transcript.mode == REPLAY:
                call = ExtenderCall(self.url_prefix, role, digest,
                                    error=f"extender {self.url_prefix}: no recorded answer to this {role} "
                                          "call in the transcript (replay makes no HTTP calls)")
                self._last_replayed = True
                raise _CallFailed(call)
            call = self._http(role, verb, digest, body)
            self.transcript.record(call)
            self._last_replayed = False
        else:
            self._last_replayed = True
        url = self.url_for(verb)
        if call.error is not None:
            raise _CallFailed(call)
        if call.status != 200:
            raise _CallFailed(call, f"failed {verb} with extender at URL {url}, code {call.status}")
        try:
            return _decode_first_value(call.body or ""), call
        except ExtenderError as e:
            raise _CallFailed(call, str(e)) from None

    def _http(self, role: str, verb: str, digest: str, body: bytes) -> ExtenderCall:
        url = self.url_for(verb)
        req = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        ctx = None
        if url.startswith("https://"):
            ctx = ssl.create_default_context()
            if self.enable_https:  # no CA configured: upstream skips verification
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
        start = time.perf_counter()
        status: int | None = None
        text: str | None = None
        error: str | None = None
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                             urllib.request.HTTPSHandler(context=ctx) if ctx else
                                             urllib.request.HTTPHandler())
        try:
            try:
                with opener.open(req, timeout=self.http_timeout) as resp:
                    status = resp.status
                    text = _read_body(resp, start, self.http_timeout)
            except urllib.error.HTTPError as e:
                status = e.code
                text = ""
        except _BodyTimeout:
            error = (f'Post "{url}": context deadline exceeded '
                     "(Client.Timeout or context cancellation while reading body)")
        except TimeoutError:
            error = f'Post "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
        except urllib.error.URLError as e:
            error = _transport_error(url, e.reason)
        except (OSError, ValueError) as e:
            error = _transport_error(url, e)
        latency = round((time.perf_counter() - start) * 1000.0, 3)
        return ExtenderCall(self.url_prefix, role, digest, status, text, error, latency)

    # ---- events --------------------------------------------------------------------------------
    def _emitting(self) -> bool:
        return self.sched is not None and self.sched.sink.enabled

    def _emit(self, role: str, pod: Pod, call: ExtenderCall | None, error: str | None = None,
              changed: dict[str, Any] | None = None) -> None:
        if not self._emitting():
            return
        assert self.sched is not None
        if call is None and error is None:
            return
        self.sched.sink.emit(
            "extender_call", cycle=self.sched.queue.scheduling_cycle, pod=pod.key, extender=self.url_prefix,
            verb=role, url=self.url_for(getattr(self, f"{role}_verb")),
            latency_ms=(call.latency_ms if call is not None else 0.0),
            replayed=bool(getattr(self, "_last_replayed", False)), ok=error is None, error=error,
            ignorable=self.ignorable, changed=changed or {})


class _CallFailed(ExtenderError):
    """An ExtenderError that still carries the call it came from (for the event)."""

    def __init__(self, call: ExtenderCall, msg: str | None = None) -> None:
        super().__init__(msg if msg is not None else (call.error or ""))
        self.call = call


class _BodyTimeout(Exception):
    pass


def _read_body(resp: Any, start: float, timeout: float) -> str:
    chunks: list[bytes] = []
    while True:
        if time.perf_counter() - start > timeout:
            raise _BodyTimeout()
        try:
            b = resp.read(65536)
        except TimeoutError:
            raise _BodyTimeout() from None
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _transport_error(url: str, reason: Any) -> str:
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return f'Post "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
    parsed = urllib.parse.urlsplit(url)
    host = parsed.hostname or ""
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    if isinstance(reason, ConnectionRefusedError):
        return f'Post "{url}": dial tcp {host}:{port}: connect: connection refused'
    if isinstance(reason, socket.gaierror):
        return f'Post "{url}": dial tcp: lookup {host}: no such host'
    if isinstance(reason, ConnectionResetError):
        return f'Post "{url}": read tcp {host}:{port}: connection reset by peer'
    text = getattr(reason, "strerror", None) or str(reason)
    return f'Post "{url}": {text}'


# --------------------------------------------------------------------------------------------
# Wiring into the scheduler


def effective_config(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """The configuration the frameworks are built from: resources an extender manages with
    ignoredByScheduler become NodeResourcesFit's ignoredResources in every profile (replacing
    what was configured), as upstream's buildExtenders does. Returns `config` itself when
    nothing changes."""
    ignored = [r["name"] for e in config.extenders for r in e.managed_resources if r.get("ignoredByScheduler")]
    if not ignored:
        return config
    cfg = copy.deepcopy(config)
    for prof in cfg.profiles:
        args = dict(prof.plugin_config.get("NodeResourcesFit") or {})
        args["ignoredResources"] = list(ignored)
        prof.plugin_config["NodeResourcesFit"] = args
    return cfg


def build_extenders(config: KubeSchedulerConfiguration, transcript: ExtenderTranscript,
                    sched: Scheduler | None) -> list[HTTPExtender]:
    """The configured extenders in upstream's order: the ignorable ones after the others."""
    exts = [HTTPExtender(e, transcript, sched) for e in config.extenders]
    return [e for e in exts if not e.ignorable] + [e for e in exts if e.ignorable]


def apply_extender_scores(sched: Scheduler, pod: Pod, nodes: list[NodeInfo], scores: list[NodePluginScores],
                          breakdown: dict[str, Any] | None) -> None:
    """Add every interested extender's scaled scores to the nodes' totals (upstream
    prioritizeNodes): score x weight x (MaxNodeScore / MaxExtenderPriority), summed per node; a
    failing prioritize call only means no scores from that extender. Each node that got an
    extender entry (any interested extender, even one without a prioritize verb) draws its heap
    tie-break Randomizer from the run's seeded RNG, in node order."""
    factor = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
    per_node: dict[str, list[tuple[str, int]]] = {}
    for ext in sched.extenders:
        if not ext.is_interested(pod):
            continue
        try:
            plist, weight = ext.prioritize(pod, nodes)
        except ExtenderError:
            continue
        for host, score in plist:
            final = score * weight * factor
            per_node.setdefault(host, []).append((ext.name(), final))
            if breakdown is not None and ext.is_prioritizer():
                row = breakdown.setdefault(ext.name(), {})
                prev = row.get(host)
                row[host] = {"raw": score + (prev["raw"] if prev else 0), "normalized": score,
                             "weighted": final + (prev["weighted"] if prev else 0), "extender": True}
    if not per_node:
        return
    rng = sched.rng
    for s in scores:
        entry = per_node.get(s.name)
        if entry is None:
            continue
        s.scores.extend(entry)
        s.total_score += sum(v for _, v in entry)
        s.randomizer = rng.getrandbits(63)
