"""One HTTP extender (upstream extender.go's HTTPExtender): its filter, prioritize, preempt and
bind verbs, each sent once (or answered from the transcript on replay) and reported as an
`extender_call` event.
"""

from __future__ import annotations

import hashlib
import http.client
import socket
import ssl
import time
import urllib.parse
from typing import TYPE_CHECKING, Any, Protocol

from scheduler_core.api.types import Pod
from scheduler_core.config.types import Extender
from scheduler_core.extender.policy import ExtenderPolicy, ExtenderURLRefused
from scheduler_core.extender.policy import post as policy_post
from scheduler_core.extender.transcript import REPLAY, ExtenderCall, ExtenderError, ExtenderTranscript
from scheduler_core.extender.wire import (
    _canonical,
    _decode_first_value,
    _fields,
    _int64,
    _json_type,
    _string_map,
    _struct,
    _want,
    node_wire,
    pod_wire,
)
from scheduler_core.framework.interface import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo

if TYPE_CHECKING:

    from scheduler_core.backend.cache.snapshot import Snapshot
    from scheduler_core.events.recorder import EventSink
    from scheduler_core.framework.preemption.preemption import Victims


MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
# The fake plugin name put in a pod's unschedulable plugins when extenders rejected nodes.
EXTENDER_NAME = "Extender"


class ExtenderServices(Protocol):
    """What an extender uses of the scheduler it serves: the snapshot (preemption victims are
    looked up on it), the event stream and the current cycle number (extender_call events)."""

    snapshot: Snapshot
    sink: EventSink

    def current_cycle(self) -> int: ...


class HTTPExtender:
    """One configured extender (upstream HTTPExtender). Its name is its urlPrefix."""

    def __init__(self, cfg: Extender, transcript: ExtenderTranscript,
                 services: ExtenderServices | None = None) -> None:
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
        self.services = services
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
        from scheduler_core.loader import parse_node
        from scheduler_core.loader.reader import object_reader

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
                    node = parse_node(object_reader(f"extender {self.url_prefix}", "Node", name),
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
        snap = self.services.snapshot if self.services is not None else None
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
        """One POST through the operator's policy (allow-list, pinned address, no redirects,
        the action's time budget)."""
        url = self.url_for(verb)
        policy = getattr(self.transcript, "policy", None) or _LOOPBACK
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
        timeout = self.http_timeout
        remaining = policy.remaining()
        try:
            if remaining is not None:
                if remaining <= 0:
                    raise _BudgetSpent()
                timeout = min(timeout, remaining)
            try:
                resp, conn = policy_post(policy, url, body, timeout, ctx)
            except TimeoutError:
                if remaining is not None and timeout < self.http_timeout:
                    raise _BudgetSpent() from None
                raise
            try:
                status = resp.status
                text = _read_body(resp, start, timeout)
            finally:
                conn.close()
        except _BudgetSpent:
            error = (f'Post "{url}": this run\'s time budget for extender calls '
                     f"({policy.budget_seconds:g}s per action) is spent")
        except ExtenderURLRefused as e:
            error = f'Post "{url}": {e}'
        except _BodyTimeout:
            error = (f'Post "{url}": context deadline exceeded '
                     "(Client.Timeout or context cancellation while reading body)")
        except TimeoutError:
            error = f'Post "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
        except (OSError, ValueError, http.client.HTTPException) as e:
            error = _transport_error(url, e)
        latency = round((time.perf_counter() - start) * 1000.0, 3)
        return ExtenderCall(self.url_prefix, role, digest, status, text, error, latency)

    # ---- events --------------------------------------------------------------------------------
    def _emitting(self) -> bool:
        return self.services is not None and self.services.sink.wants("extender_call")

    def _emit(self, role: str, pod: Pod, call: ExtenderCall | None, error: str | None = None,
              changed: dict[str, Any] | None = None) -> None:
        if not self._emitting():
            return
        assert self.services is not None
        if call is None and error is None:
            return
        self.services.sink.emit(
            "extender_call", cycle=self.services.current_cycle(), pod=pod.key, extender=self.url_prefix,
            verb=role, url=self.url_for(getattr(self, f"{role}_verb")),
            latency_ms=(call.latency_ms if call is not None else 0.0),
            replayed=self._last_replayed, ok=error is None, error=error,
            ignorable=self.ignorable, changed=changed or {})


class _CallFailed(ExtenderError):
    """An ExtenderError that still carries the call it came from (for the event)."""

    def __init__(self, call: ExtenderCall, msg: str | None = None) -> None:
        super().__init__(msg if msg is not None else (call.error or ""))
        self.call = call


class _BodyTimeout(Exception):
    pass


class _BudgetSpent(Exception):
    pass


_LOOPBACK = ExtenderPolicy.loopback()


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
