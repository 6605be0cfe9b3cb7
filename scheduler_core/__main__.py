"""Command line: `python -m scheduler_core simulate|trace FILE [--seed N] [--max-time S]`.

`simulate` prints the contract's JSON document (../shared/docs/simulate-contract.md);
`trace` prints every engine event as one JSON object per line. Same file and seed give
byte-identical output. A bad scenario prints one clear error on stderr and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.loader import load_scenario_file
from scheduler_core.simulation import Simulation


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scheduler_core", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name, help_ in (("simulate", "run to settled and print the outcome as JSON"),
                        ("trace", "run to settled and print every engine event as JSON lines")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("file")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--max-time", type=float, default=3600.0, help="virtual seconds (default 3600)")
        p.add_argument("--graceful-termination", action="store_true",
                       help="deleted pods terminate over their grace period (default: gone at once, "
                            "as in the upstream recordings without kubelets)")
    args = ap.parse_args(argv)
    try:
        scenario = load_scenario_file(args.file)
        sim = Simulation(scenario, seed=args.seed, record_events=(args.command == "trace"),
                         graceful_termination=args.graceful_termination)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    settled = sim.run(args.max_time)
    out = sys.stdout
    if args.command == "simulate":
        json.dump(sim.result(settled), out, indent=2, sort_keys=False)
        out.write("\n")
    else:
        for ev in sim.sink.events:
            out.write(json.dumps(ev, sort_keys=True, default=str))
            out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
