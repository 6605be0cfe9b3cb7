"""A run start that waits for a worker computing a big scenario's start (prepare.py) waits as
long as that worker's heartbeat goes on, and no longer once it stops (real Redis)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from playground.services.runs import prepare


@pytest.fixture
def fast_beat(monkeypatch: pytest.MonkeyPatch, settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url
    monkeypatch.setattr(prepare, "PREPARING_TTL", 1)
    monkeypatch.setattr(prepare, "PREPARING_BEAT", 0.2)


def test_the_mark_outlives_its_ttl_while_the_worker_computes_and_goes_with_it(fast_beat: None) -> None:
    with prepare._preparing(991_001) as mine:
        assert mine
        time.sleep(2.5)  # over twice the mark's TTL: only the heartbeat keeps it
        assert prepare._being_prepared(991_001)
        with prepare._preparing(991_001) as second:
            assert not second  # another preparation sees it taken and does not compute it again
    assert not prepare._being_prepared(991_001)


def test_a_mark_without_heartbeat_expires(fast_beat: None) -> None:
    from playground.infra.redis_client import shared as _shared_redis

    _shared_redis().set(prepare._preparing_key(991_002), 1, ex=prepare.PREPARING_TTL)  # a worker that died
    assert prepare._being_prepared(991_002)
    time.sleep(1.5)
    assert not prepare._being_prepared(991_002)
