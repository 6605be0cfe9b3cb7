"""An extender answering a Score no int64 holds: refused with Go's decoder message (the number as
written), the verb's error skipped as upstream skips a prioritize error; a literal of 5,000 digits
(past Python's int conversion limit) used to escape as ValueError and end the run."""

from __future__ import annotations

import pytest

from tests.engine.extender._server import Reply, scenario
from tests.engine.extender.test_extender import NODES3, _ext_events, _pods, _run, ext  # noqa: F401 (fixture)

BIG = "9" * 5000


@pytest.mark.parametrize("score", ["9223372036854775808", BIG, "-" + BIG])
def test_score_past_int64_is_a_decode_error(ext, score: str) -> None:  # noqa: F811
    ext.handlers["prioritize"] = lambda a: Reply(f'[{{"Host": "n1", "Score": {score}}}]')
    cfg = {"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 1}
    sim, res = _run(scenario([cfg], NODES3, [{"name": "p"}]))
    assert _pods(res)["p"]["status"] == "Bound"
    ev = _ext_events(sim, "prioritize")[0]
    assert ev["error"] == (f"json: cannot unmarshal number {score} into Go struct field HostPriority.Score "
                           "of type int64")
