"""A sample scheduler extender: `python -m scheduler_core.extender.sample --port 8888`.

It speaks upstream's extender wire format (k8s.io/kube-scheduler/extender/v1, Go field names as
JSON keys) over plain HTTP, with the standard library only, so a playground scenario can
configure it as

    extenders:
    - urlPrefix: http://127.0.0.1:8888
      filterVerb: filter
      prioritizeVerb: prioritize
      preemptVerb: preempt
      bindVerb: bind
      weight: 1

What it decides (stateless: the same request always gets the same answer, so recorded runs and
live runs agree):

- filter: a node passes when it has the label `playground/extender-allowed=true` (see --label);
  a node whose label has another value fails as UnschedulableAndUnresolvable (an explicit "no"),
  a node without the label fails as Unschedulable. `--label ""` lets every node pass.
- prioritize: prefers nodes with more allocatable `nvidia.com/gpu` (see --resource), scaled to
  0..10 over the nodes it is asked about. It only sees nodes, not the pods on them, so it scores
  capacity, not what is left of it.
- preempt: refuses the candidate nodes where a victim carries the label
  `playground/extender-protected=true` (a service that knows some pods must not be disrupted,
  which the scheduler's own criteria cannot see), and accepts every other candidate node and
  victim as proposed (answering the victims' UIDs). With nodeCacheCapable: true it gets the
  victims' UIDs only, and accepts them all.
- bind: acknowledges (an empty Error): the scheduler then treats the pod as bound.

With nodeCacheCapable: true it receives node names only; it then lets every node pass and scores
them all 0, since it keeps no node cache of its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_LABEL = "playground/extender-allowed=true"
DEFAULT_RESOURCE = "nvidia.com/gpu"
PROTECTED_LABEL = "playground/extender-protected"
MAX_EXTENDER_PRIORITY = 10

_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
             "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "k": 10**3,
             "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


def _quantity(s: Any) -> Fraction:
    """Enough of resource.Quantity for counts like "4", "500m", "2k"."""
    text = str(s).strip()
    for suf in sorted(_SUFFIXES, key=len, reverse=True):
        if text.endswith(suf):
            try:
                return Fraction(text[: -len(suf)]) * _SUFFIXES[suf]
            except ValueError:
                return Fraction(0)
    try:
        return Fraction(text)
    except ValueError:
        return Fraction(0)


class Policy:
    """The decisions, separate from HTTP so they are easy to read and test."""

    def __init__(self, label: str = DEFAULT_LABEL, resource: str = DEFAULT_RESOURCE) -> None:
        self.label_key, _, self.label_value = label.partition("=")
        self.resource = resource

    def filter(self, args: dict[str, Any]) -> dict[str, Any]:
        names = args.get("NodeNames")
        if names is not None:  # nodeCacheCapable: names only
            return {"NodeNames": list(names), "FailedNodes": {}, "FailedAndUnresolvableNodes": {}, "Error": ""}
        items = (args.get("Nodes") or {}).get("items") or []
        passed, failed, unresolvable = [], {}, {}
        for node in items:
            name = node["metadata"]["name"]
            labels = node["metadata"].get("labels") or {}
            if not self.label_key or labels.get(self.label_key) == self.label_value:
                passed.append(node)
            elif self.label_key in labels:
                unresolvable[name] = f"node(s) have {self.label_key}={labels[self.label_key]}, not {self.label_value}"
            else:
                failed[name] = f"node(s) didn't have label {self.label_key}={self.label_value}"
        return {"Nodes": {"metadata": {}, "items": passed}, "NodeNames": None, "FailedNodes": failed,
                "FailedAndUnresolvableNodes": unresolvable, "Error": ""}

    def prioritize(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        names = args.get("NodeNames")
        if names is not None:
            return [{"Host": n, "Score": 0} for n in names]
        items = (args.get("Nodes") or {}).get("items") or []
        amounts = {}
        for node in items:
            status = node.get("status") or {}
            alloc = status.get("allocatable") or status.get("capacity") or {}
            amounts[node["metadata"]["name"]] = _quantity(alloc.get(self.resource, "0"))
        top = max(amounts.values(), default=Fraction(0))
        return [{"Host": n, "Score": int(a * MAX_EXTENDER_PRIORITY / top) if top > 0 else 0}
                for n, a in amounts.items()]

    def preempt(self, args: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        meta = args.get("NodeNameToMetaVictims")
        if meta:
            for node, v in meta.items():
                out[node] = {"Pods": [{"UID": p["UID"]} for p in v.get("Pods") or []],
                             "NumPDBViolations": v.get("NumPDBViolations", 0)}
        for node, v in (args.get("NodeNameToVictims") or {}).items():
            pods = v.get("Pods") or []
            if any((p["metadata"].get("labels") or {}).get(PROTECTED_LABEL) == "true" for p in pods):
                continue  # a protected victim: this node is no candidate for this service
            out[node] = {"Pods": [{"UID": p["metadata"]["uid"]} for p in pods],
                         "NumPDBViolations": v.get("NumPDBViolations", 0)}
        return {"NodeNameToMetaVictims": out}

    def bind(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"Error": ""}


def make_handler(policy: Policy, quiet: bool = False) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            verb = self.path.rstrip("/").rsplit("/", 1)[-1]
            fn = {"filter": policy.filter, "prioritize": policy.prioritize, "preempt": policy.preempt,
                  "bind": policy.bind}.get(verb)
            if fn is None:
                self.send_error(404, f"unknown verb {verb!r}")
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                args = json.loads(self.rfile.read(length) or b"{}")
                out = json.dumps(fn(args)).encode()
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                self.send_error(400, f"bad request: {e}")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            if not quiet:
                super().log_message(format, *args)

    return Handler


def serve(port: int = 8888, host: str = "127.0.0.1", label: str = DEFAULT_LABEL,
          resource: str = DEFAULT_RESOURCE, quiet: bool = False) -> ThreadingHTTPServer:
    """A server ready to `serve_forever()` (port 0 picks a free port: see server_address)."""
    return ThreadingHTTPServer((host, port), make_handler(Policy(label, resource), quiet))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scheduler_core.extender.sample",
                                 description="A sample scheduler extender (filter, prioritize, preempt, bind).")
    ap.add_argument("--port", type=int, default=8888)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--label", default=DEFAULT_LABEL,
                    help='KEY=VALUE a node needs to pass the filter ("" lets every node pass)')
    ap.add_argument("--resource", default=DEFAULT_RESOURCE, help="extended resource nodes are ranked by")
    ap.add_argument("--quiet", action="store_true", help="no request log")
    args = ap.parse_args(argv)
    server = serve(args.port, args.host, args.label, args.resource, args.quiet)
    host, port = server.server_address[:2]
    print(f"sample extender listening on http://{host}:{port} (verbs: filter, prioritize, preempt, bind)",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
