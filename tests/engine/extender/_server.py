"""A tiny extender on loopback for the tests: each verb answers with a function of the decoded
request, in a thread, on a free port."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scheduler_core.loader import load_scenario_text


class Reply:
    """A raw answer: status code, body text, optional delay before answering."""

    def __init__(self, body: str = "", status: int = 200, delay: float = 0.0) -> None:
        self.body, self.status, self.delay = body, status, delay


class FakeExtender:
    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[dict[str, Any]], Any]] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                verb = self.path.rsplit("/", 1)[-1]
                args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((verb, args))
                fn = outer.handlers.get(verb)
                out = fn(args) if fn else Reply("no handler", 404)
                if not isinstance(out, Reply):
                    out = Reply(json.dumps(out))
                if out.delay:
                    time.sleep(out.delay)
                data = out.body.encode()
                try:
                    self.send_response(out.status)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *a: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def verbs(self) -> list[str]:
        return [v for v, _ in self.requests]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def scenario(extenders: list[dict[str, Any]], nodes: list[dict[str, Any]], pods: list[dict[str, Any]]):
    """Build a scenario from plain dicts (JSON is YAML)."""
    docs = [{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
             "extenders": extenders}]
    for n in nodes:
        docs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": n["name"], "labels": {"kubernetes.io/hostname": n["name"],
                                                                **n.get("labels", {})}},
                     "status": {"capacity": {"cpu": n.get("cpu", "4"), "memory": "8Gi", **n.get("extra", {})}}})
    for p in pods:
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause",
                                                "resources": {"requests": {"cpu": p.get("cpu", "1")},
                                                              **({"limits": p["limits"]} if "limits" in p else {})}}]}
        if "node" in p:
            spec["nodeName"] = p["node"]
        if "priority" in p:
            spec["priority"] = p["priority"]
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": p["name"], "namespace": "default"},
                     "spec": spec})
    return load_scenario_text("\n---\n".join(json.dumps(d) for d in docs), source="test")


def node_names(args: dict[str, Any]) -> list[str]:
    if args.get("NodeNames") is not None:
        return list(args["NodeNames"])
    return [n["metadata"]["name"] for n in args["Nodes"]["items"]]


def keep(args: dict[str, Any], names: set[str], failed: dict[str, str] | None = None,
         unresolvable: dict[str, str] | None = None) -> dict[str, Any]:
    """A filter answer keeping `names`, in the shape matching the request."""
    out: dict[str, Any] = {"FailedNodes": failed or {}, "FailedAndUnresolvableNodes": unresolvable or {},
                           "Error": ""}
    if args.get("NodeNames") is not None:
        out["NodeNames"] = [n for n in args["NodeNames"] if n in names]
    else:
        out["Nodes"] = {"metadata": {}, "items": [n for n in args["Nodes"]["items"]
                                                  if n["metadata"]["name"] in names]}
    return out
