"""DRA CEL selectors at upstream's limits: the figures of issue 38's items 1 and 2.

    .venv/bin/python bench/cel_selectors.py [--classes 150] [--skip-web]

- n1000: `python -m scheduler_core simulate` on a scenario whose DeviceClass selector is
  `[[0,1,...,999]].all(l, l.all(x, l.all(y, true)))` (3.9 KB): wall seconds, exit code and the
  error line (refused at load by the cost estimate, as the API server refuses it).
- costliest: the largest N for which `[0..N-1].all(x, [0..N-1].all(y, BODY))` is still within
  the estimated-cost limit (N+1 is refused), evaluated once on a device: wall and CPU seconds
  and the runtime cost counted; for a trivial body (`true`: the most steps per cost unit) and
  an arithmetic one.
- many: one file of CLASSES DeviceClasses with distinct ~9 KB selectors: simulate's wall
  seconds and peak RSS (the child's ru_maxrss), and one compiled selector's retained bytes
  (tracemalloc).
- web (unless --skip-web): such files uploaded through Django's test client on a temporary
  SQLite database, ROUNDS of them with no selector in common: wall and CPU seconds of each,
  this process's RSS before and after each (the compile cache is bounded by bytes, so RSS
  levels off instead of growing with every upload).

Figures only (no assertions); the machine is shared, so CPU seconds are the steadier figure.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SCENARIO = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu.example.com}}
spec:
  selectors:
  - cel:
      expression: '{expression}'
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {{kubernetes.io/hostname: n1}}
status:
  capacity: {{cpu: '8', memory: 32Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: n1-gpu}}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      model: {{string: a100}}
    capacity:
      memory: {{value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: one-gpu}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: gpu.example.com}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p1}}
spec:
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]
  containers:
  - name: c
    resources:
      requests: {{cpu: 100m}}
      claims: [{{name: gpu}}]
"""


def numbers(n: int) -> str:
    return "[" + ",".join(str(i) for i in range(n)) + "]"


def run_cli(path: Path) -> dict[str, Any]:
    """simulate in a child: wall and CPU seconds, exit code, last stderr line, peak RSS (the
    child's own rusage, from wait4)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "scheduler_core", "simulate", str(path)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=err_file)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err_file.seek(0)
        lines = [ln for ln in err_file.read().decode(errors="replace").splitlines() if ln.strip()]
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "exit": proc.returncode,
            "stderr": lines[-1][:300] if lines else "", "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def n1000(tmp: Path) -> dict[str, Any]:
    expr = f"[{numbers(1000)}].all(l, l.all(x, l.all(y, true)))"
    path = tmp / "n1000.yaml"
    path.write_text(SCENARIO.format(expression=expr))
    return {"expression_bytes": len(expr), **run_cli(path)}


def costliest() -> list[dict[str, Any]]:
    from scheduler_core.api.resource_types import Device, DeviceAttribute
    from scheduler_core.dra.cel import CompiledSelector, device_activation

    act = device_activation("gpu.example.com", Device("gpu-0", attributes={"model": DeviceAttribute("string", "a100")},
                                                      capacity={}))
    out = []
    for body in ("true", "x + y >= 0 && x - y < 1000"):
        def expr(n: int, body: str = body) -> str:
            return f"{numbers(n)}.all(x, {numbers(n)}.all(y, {body}))"
        lo, hi = 1, 2000  # the largest N within the estimate: binary search
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if CompiledSelector(expr(mid)).error is None:
                lo = mid
            else:
                hi = mid - 1
        compiled = CompiledSelector(expr(lo))
        refused = CompiledSelector(expr(lo + 1))
        c0, w0 = time.process_time(), time.perf_counter()
        result, cost, err = compiled.evaluate(act)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        out.append({"body": body, "n": lo, "estimate": compiled.max_cost, "n_plus_1": refused.error,
                    "n_plus_1_estimate": refused.max_cost, "result": result, "error": err,
                    "runtime_cost": cost, "eval_wall_s": round(wall, 3), "eval_cpu_s": round(cpu, 3)})
    return out


def selector(k: int, size: int = 9000) -> str:
    """A distinct ~9 KB selector: attribute and capacity tests joined by ||."""
    terms: list[str] = []
    i = 0
    while True:
        if i % 2:
            t = f'device.attributes["gpu.example.com"].model == "model-{k}-{i}"'
        else:
            t = f'device.capacity["gpu.example.com"].memory.compareTo(quantity("{i + k}Gi")) >= 0'
        if len(" || ".join([*terms, t])) > size:
            return " || ".join(terms)
        terms.append(t)
        i += 1


def many_file(tmp: Path, classes: int, salt: int = 0) -> Path:
    docs = []
    for k in range(classes):
        docs.append(f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: class-{k}.example.com}}\n"
                    f"spec:\n  selectors:\n  - cel:\n      expression: '{selector(k + salt)}'\n")
    docs.append(SCENARIO.format(expression='device.driver == "gpu.example.com"'))
    path = tmp / f"classes-{classes}-{salt}.yaml"
    path.write_text("---\n".join(docs))
    return path


def retained_bytes() -> dict[str, Any]:
    from scheduler_core.dra.cel import CompiledSelector

    CompiledSelector("true")
    text = selector(10_001)
    gc.collect()
    tracemalloc.start()
    compiled = CompiledSelector(text)
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"selector_bytes": len(text), "retained_kb": current // 1024, "peak_kb": peak // 1024,
            "estimated_kb": compiled.nbytes // 1024}


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return round(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20, 1)


def web(tmp: Path, classes: int, rounds: int) -> dict[str, Any]:
    """Upload ROUNDS files of CLASSES distinct selectors each (no selector shared between
    files): the first upload's time and RSS growth, then RSS after each later one (the compile
    cache is bounded, so it levels off)."""
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
                      ALLOWED_HOSTS="testserver", LOG_LEVEL="ERROR", REDIS_URL="redis://127.0.0.1:1/0")
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client

    from scheduler_core.dra import cel

    call_command("migrate", verbosity=0)
    client = Client()
    client.get("/")
    gc.collect()
    out: dict[str, Any] = {"rss_before_mb": rss_mb(), "uploads": []}
    for r in range(rounds):
        path = many_file(tmp, classes, salt=100_000 * (r + 1))
        c0, w0 = time.process_time(), time.perf_counter()
        response = client.post("/scenarios/", {"name": f"classes-{r}", "seed": "0",
                                               "file": SimpleUploadedFile(path.name, path.read_bytes())})
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        gc.collect()
        out["uploads"].append({"status": response.status_code, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                               "rss_after_mb": rss_mb(), "cache_entries": len(cel.CACHE.entries),
                               "cache_estimated_mb": round(cel.CACHE.used / 2 ** 20, 1)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=150)
    parser.add_argument("--skip-web", action="store_true")
    parser.add_argument("--rounds", type=int, default=4, help="web uploads of distinct files")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="cel-bench-"))
    report: dict[str, Any] = {"n1000": n1000(tmp), "costliest": costliest()}
    path = many_file(tmp, args.classes)
    report["many"] = {"file_mb": round(path.stat().st_size / 2 ** 20, 2), **run_cli(path),
                      "one_selector": retained_bytes()}
    if not args.skip_web:
        report["web"] = web(tmp, args.classes, args.rounds)
    print(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
