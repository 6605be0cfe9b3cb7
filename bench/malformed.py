"""How fast the loader refuses bad input: every file of the malformed corpus and the generated
hostile inputs (deep, huge, alias bombs), each timed through `load_scenario_text`.

    python bench/malformed.py            # the slowest ten and the maximum

The goal (issue: "none slower than 2 s") is a figure reported here, not a timed assertion in
the test suite, which only checks that each input is refused with a located error.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scheduler_core.api.errors import ScenarioError  # noqa: E402
from scheduler_core.loader import CLI_LIMITS, load_scenario_text  # noqa: E402
from tests.engine.loader.test_malformed_corpus import FILES, GENERATED  # noqa: E402


def main() -> int:
    inputs = [(p.name, p.read_bytes().decode("utf-8", "replace")) for p in FILES]
    inputs += [(f"generated:{name}", text) for name, text in GENERATED.items()]
    timings: list[tuple[float, str, bool]] = []
    for name, text in inputs:
        start = time.perf_counter()
        try:
            load_scenario_text(text, source=name, limits=CLI_LIMITS)
            refused = False
        except ScenarioError:
            refused = True
        timings.append((time.perf_counter() - start, name, refused))
    timings.sort(reverse=True)
    print(f"{len(timings)} inputs; refused {sum(r for _, _, r in timings)}; "
          f"max {timings[0][0]:.3f} s ({timings[0][1]})")
    for seconds, name, refused in timings[:10]:
        print(f"  {seconds:7.3f} s  {'refused ' if refused else 'ACCEPTED'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
