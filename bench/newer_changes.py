"""What the run page's "newer releases' changes" answer costs on a run's snapshot, on its first
view (playground/selectors/run_newer_changes.py: afterwards it is cached).

    python bench/newer_changes.py bench/inputs/perf-5000n-10000p.yaml [--runs 3]

Prints one JSON line per input: the text's size, the answer as the page computes it (the name
test, then the loader's decoder only when a kind or field could be in the text) and the decoder
forced (what a snapshot that names one of them costs), best of `--runs`, in CPU seconds of this
process (the shared machine inflates wall times).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _best(runs: int, call: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times)


def _decoded(text: str, fields: set[str]) -> object:
    from scheduler_core.loader.newer_kinds import kinds_and_fields
    from scheduler_core.loader.yaml_input import decode_yaml

    return kinds_and_fields(decode_yaml(text, "run")[0], fields)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from playground.selectors import run_newer_changes as answer

    for path in args.inputs:
        text = path.read_text()
        page = _best(args.runs, partial(answer.newer_changes_of, text, ""))
        forced = _best(args.runs, partial(_decoded, text, answer._FIELDS))
        print(json.dumps({"input": str(path), "mb": round(len(text) / 1e6, 1),
                          "may_hold_one": answer._may_hold_one(text),
                          "page_cpu_s": round(page, 3), "decoder_cpu_s": round(forced, 3)}))


if __name__ == "__main__":
    main()
