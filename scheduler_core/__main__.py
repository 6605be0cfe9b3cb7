"""Command line: `python -m scheduler_core simulate|trace FILE [--seed N] [--max-time S]
[--kubernetes-version v1.35|v1.30] [--feature-gates A=true,B=false] [--plugins my_module,...]`.

`--plugins` imports out-of-tree plugin modules (importable from PYTHONPATH) before the scenario
is read; each registers its plugins, which the scenario's KubeSchedulerConfiguration may then
enable (docs/plugins.md).

Input limits are flags (`--max-nodes`, `--max-pods`, `--max-bytes`, `--max-claims`) whose
defaults admit 65,000 nodes, 150,000 pods, 256 MiB of input and 150,000 claims made from templates. Fields the playground accepts but does not simulate are listed on
stderr as `warning: ...` lines; they never change the exit status.

`simulate` prints the contract's JSON document (../shared/docs/simulate-contract.md), with
`--why-pending` also its pending pods grouped by failure (docs/why-pending.md);
`trace` prints every engine event as one JSON object per line. Same file and seed give
byte-identical output. A bad scenario prints one clear error on stderr and exits 2.
`capacity FILE --pod POD.yaml [--max N] [--json]` counts how many more copies of the pod the
cluster takes and quotes the FailedScheduling message of the first that does not fit
(docs/capacity.md).
`--metrics FILE` (either command) also writes the run's scheduler metrics, recomputed from its
event stream, as Prometheus text to FILE at the end (docs/metrics.md); stdout is unchanged.

A file's leading `# feature-gates: A=true,B=true` comment (the gallery's header, read by the same
parser as the web's start form: scheduler_core.loader.scenario_header) sets those gates for the run,
said on stderr as a `note:` line; `--feature-gates` is applied after it, a gate in both taking the
flag's value. A header naming another run setting (`# version:`, `# seed:` ...) is not read: a
`warning:` line names the flag to use.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from scheduler_core.api.errors import ScenarioError
from scheduler_core.events.jsonl import event_line_writer
from scheduler_core.extender import ExtenderPolicy, ExtenderTranscript
from scheduler_core.featuregate import FeatureGateError
from scheduler_core.featuregate.features import DEFAULT_KUBERNETES_VERSION, SUPPORTED_VERSIONS, UnknownVersionError
from scheduler_core.framework.interface import PluginArgsError
from scheduler_core.framework.plugins.plugin_modules import PluginModuleError, load_plugin_modules
from scheduler_core.framework.runtime.framework import FrameworkError
from scheduler_core.loader import CLI_HINTS, CLI_LIMITS, Limits, load_scenario_file
from scheduler_core.loader.newer_gates import gate_names, gate_notes
from scheduler_core.loader.scenario_header import file_header, merge_gates
from scheduler_core.questions.capacity import PodTemplate, count_capacity, read_pod_template
from scheduler_core.questions.why_pending import PendingCollector
from scheduler_core.simulation import Simulation

TRACE_BUFFER = 1024 * 1024  # bytes of trace output held before a write (see _trace_output)


def _trace_output() -> Any:
    """stdout with a 1 MiB buffer: a trace is tens of megabytes, and through the default 8 KiB
    buffer every few events cost a system call and, into a pipe, a wake-up of the reader. Lines
    still leave as the buffer fills, so the trace streams; on a terminal, line by line."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's StringIO, say)
        return sys.stdout
    if sys.stdout.isatty():
        return sys.stdout
    sys.stdout.flush()
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(io.BufferedWriter(raw, buffer_size=TRACE_BUFFER), encoding="utf-8", newline="\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scheduler_core", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name, help_ in (("simulate", "run to settled and print the outcome as JSON"),
                        ("trace", "run to settled and print every engine event as JSON lines"),
                        ("capacity", "how many more copies of a pod fit, and what stops the next one "
                                     "(docs/capacity.md)")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("file")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--max-time", type=float, default=3600.0, help="virtual seconds (default 3600)")
        p.add_argument("--kubernetes-version", default=None, metavar="VERSION",
                       help=f"kube-scheduler release to model: {', '.join(SUPPORTED_VERSIONS)} "
                            f"(default {DEFAULT_KUBERNETES_VERSION})")
        p.add_argument("--feature-gates", default="", metavar="A=true,B=false",
                       help="upstream feature gates to set for the run, as kube-scheduler takes them "
                            "(validated against the modelled version's gate table); added to the "
                            "file's `# feature-gates:` header, a gate in both taking this value")
        p.add_argument("--plugins", action="append", default=[], metavar="MODULE[,MODULE]",
                       help="out-of-tree plugin modules to import (repeatable or comma-separated); "
                            "each defines register(registry) (see docs/plugins.md)")
        p.add_argument("--graceful-termination", action="store_true",
                       help="deleted pods terminate over their grace period (default: gone at once, "
                            "as in the upstream recordings without kubelets)")
        p.add_argument("--max-nodes", type=int, default=CLI_LIMITS.max_nodes, metavar="N",
                       help=f"refuse scenarios with more nodes (default {CLI_LIMITS.max_nodes:,})")
        p.add_argument("--max-pods", type=int, default=CLI_LIMITS.max_pods, metavar="N",
                       help=f"refuse scenarios with more pods (default {CLI_LIMITS.max_pods:,})")
        p.add_argument("--max-claims", type=int, default=CLI_LIMITS.max_claims, metavar="N",
                       help="refuse scenarios whose controllers would make more claims from templates "
                            f"(PVCs of volumeClaimTemplates and ephemeral volumes, ResourceClaims; "
                            f"default {CLI_LIMITS.max_claims:,})")
        p.add_argument("--max-bytes", type=int, default=CLI_LIMITS.max_bytes, metavar="N",
                       help=f"refuse larger files (default {CLI_LIMITS.max_bytes:,})")
        p.add_argument("--extender-allow", action="append", default=[], metavar="URL_PREFIX",
                       help="an extender URL prefix the run may call (repeatable; a port of * allows "
                            "every port); default: any port on loopback (127.0.0.1, localhost, [::1])")
        p.add_argument("--metrics", default=None, metavar="FILE",
                       help="write the run's scheduler metrics (Prometheus text format) to FILE at the end")
        if name == "capacity":
            p.add_argument("--pod", required=True, metavar="POD.yaml",
                           help="the Pod (or Deployment / ReplicaSet, for its template) to copy")
            p.add_argument("--max", type=int, default=None, metavar="N", help="stop after N copies fit")
            p.add_argument("--json", action="store_true", help="print the answer as JSON")
        if name == "simulate":
            p.add_argument("--why-pending", action="store_true",
                           help="add `whyPending`: the pending pods grouped by their scheduling failure "
                                "(docs/why-pending.md)")
    args = ap.parse_args(argv)
    if getattr(args, "max", None) is not None and args.max < 1:
        print(f"error: --max: must be at least 1, got {args.max}", file=sys.stderr)
        return 2
    try:
        policy = (ExtenderPolicy.from_prefixes(args.extender_allow) if args.extender_allow
                  else ExtenderPolicy.loopback())
    except ValueError as e:
        print(f"error: --extender-allow: {e}", file=sys.stderr)
        return 2
    if args.plugins:
        try:
            load_plugin_modules(args.plugins)
        except PluginModuleError as e:
            print(f"error: --plugins: {e}", file=sys.stderr)
            return 2
    metrics_out = None
    if args.metrics:
        try:  # refuse an unwritable path before any work, not after the run
            metrics_out = open(args.metrics, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as e:
            print(f"error: --metrics: {args.metrics}: {e.strerror or e}", file=sys.stderr)
            return 2
    metrics = None
    if metrics_out is not None:  # imported only when asked for: prometheus_client costs a start-up
        from scheduler_core.metrics import PluginWallClock, RunMetrics, exposition

        metrics = RunMetrics()
    header = file_header(args.file)  # the gallery's `# feature-gates:`, read as the web reads it
    for key, flag in header.ignored:
        print(f"warning: {args.file}: header `# {key}:` is not read by a run; pass {flag} instead",
              file=sys.stderr)
    gates = merge_gates(header.feature_gates, args.feature_gates)
    for line in gate_notes(gate_names(gates)):  # gates v1.36/v1.37 added, removed or renamed
        print(f"note: {line}", file=sys.stderr)
    if header.feature_gates:
        print(f"note: {args.file}: feature gates from its `# feature-gates:` header: "
              f"{header.feature_gates}" + (f" (then --feature-gates {args.feature_gates})"
                                           if args.feature_gates else ""), file=sys.stderr)
    try:
        template = read_pod_template(args.pod) if args.command == "capacity" else None
        limits = Limits(max_nodes=args.max_nodes, max_pods=args.max_pods,
                        max_bytes=args.max_bytes, max_claims=args.max_claims, hints=CLI_HINTS)
        scenario = load_scenario_file(args.file, limits=limits)
        for warning in scenario.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        tracing = args.command == "trace"
        trace_out = _trace_output() if tracing else None
        writer = event_line_writer(trace_out) if trace_out is not None else None
        wall = None
        if metrics is not None:
            writer = _feeding(metrics, writer)
            wall = PluginWallClock()
        sim = Simulation(scenario, seed=args.seed, record_events=tracing or metrics is not None,
                         graceful_termination=args.graceful_termination,
                         kubernetes_version=args.kubernetes_version, feature_gates=gates,
                         event_writer=writer,
                         extender_transcript=ExtenderTranscript(policy=policy))
        if wall is not None:
            wall.instrument(sim.scheduler.profiles)
        for note in sim.version_notes:
            print(f"warning: {note}", file=sys.stderr)
    except (ScenarioError, UnknownVersionError, FrameworkError, PluginArgsError) as e:
        # The last two: a profile the loader accepted that the modelled version's plugins refuse.
        print(f"error: {e}", file=sys.stderr)
        return 2
    except FeatureGateError as e:
        origin = (f' (with the file\'s "# feature-gates: {header.feature_gates}" header)'
                  if header.feature_gates else "")
        print(f'error: invalid argument "{gates}" for "--feature-gates" flag{origin}: {e}', file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    if template is not None:
        return _capacity(args, sim, template)
    try:
        collector = PendingCollector(sim) if getattr(args, "why_pending", False) else None
        settled = sim.run(args.max_time) if collector is None else collector.run(args.max_time)
        if trace_out is not None:
            trace_out.flush()
    except BrokenPipeError:  # the trace's reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if args.command == "simulate":
        doc = sim.result(settled)
        if collector is not None:
            doc["whyPending"] = collector.report()
        # One write of the whole text: json.dump writes piece by piece, and with stdout unbuffered
        # (PYTHONUNBUFFERED, common in containers) that is a system call per piece: ~580,000 at
        # 15,000 pods, seconds of system time at 150,000.
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    if metrics_out is not None and metrics is not None:
        with metrics_out:
            metrics_out.write(exposition(metrics, wall))
    return 0


def _capacity(args: argparse.Namespace, sim: Simulation, template: PodTemplate) -> int:
    """`capacity`: copies of the template until the first the scheduler does not bind."""
    try:
        answer = count_capacity(sim, template, args.max, args.max_time)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(answer.to_json(), indent=2) + "\n")  # one write (see simulate's)
    else:
        print(answer.to_text())
    return 0


def _feeding(metrics: Any, writer: Callable[[dict[str, Any]], None] | None
             ) -> Callable[[dict[str, Any]], None]:
    """The event writer of a run whose metrics are kept: each event feeds them, then the trace."""
    feed = metrics.feed
    if writer is None:
        return feed

    def both(ev: dict[str, Any]) -> None:
        feed(ev)
        writer(ev)

    return both


if __name__ == "__main__":
    sys.exit(main())
