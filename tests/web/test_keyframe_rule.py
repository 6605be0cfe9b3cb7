"""When the worker stores a whole view: by the weight of the deltas since the last keyframe."""

from __future__ import annotations

import pytest

from playground import frame_views, keyframe_rule
from playground.keyframe_rule import KeyframeRule, json_size


def test_a_keyframe_once_the_deltas_outweigh_the_last_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frame_views, "KEYFRAME_EVERY", 3)
    rule = KeyframeRule()
    rule.stored_keyframe({"pods": ["x" * 86]})  # weighs 100 bytes
    assert rule.keyframe_bytes == 100
    decisions = []
    for _ in range(6):
        decisions.append(rule.wants_keyframe(30))
        if not decisions[-1]:
            rule.stored_delta(30)
    # Never before KEYFRAME_EVERY frames; then once 4 deltas of 30 bytes reach 100.
    assert decisions == [False, False, False, True, True, True]


def test_small_deltas_still_take_a_keyframe_every_keyframe_max(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keyframe_rule, "KEYFRAME_MAX", 10)
    rule = KeyframeRule(keyframe={"big": "x" * 10_000})
    frames = 0
    while not rule.wants_keyframe(1):
        rule.stored_delta(1)
        frames += 1
    assert frames == 9  # the chain a reader walks back stays bounded


def test_resuming_counts_the_stored_deltas() -> None:
    deltas = [{"delta": 4, "clock": 1.0}, {"delta": 5, "clock": 2.0}]
    rule = KeyframeRule.resume(deltas, {"nodes": []})
    assert rule.chain_frames == 2 and rule.chain_bytes == sum(json_size(d) for d in deltas)
    assert rule.keyframe_bytes == json_size({"nodes": []})
