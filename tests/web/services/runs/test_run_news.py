"""The runs' news (services/runs/news.py): the run's pages hear that its log grew through the
Channels group (real Redis channel layer), then every subscriber is told; a failing subscriber
neither fails the sender nor silences the others; the challenge results subscribe at start-up
(the news never calls them by name)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from playground.groups import RUN_UPDATED_EVENT, run_group
from playground.services.runs import news

pytestmark = pytest.mark.django_db  # the challenge results' subscriber looks the run up

RUN = -4242  # no such run: only this test's group and subscribers see it


@pytest.fixture
def heard() -> Iterator[list[int]]:
    """The run ids a subscriber of this test's own was told of (unsubscribed afterwards)."""
    runs: list[int] = []

    def listener(*, run_id: int) -> None:
        runs.append(run_id)

    news.subscribe(listener)
    yield runs
    news.unsubscribe(listener)


def test_the_news_reaches_the_run_group_and_then_every_subscriber(channel_layer: Any, heard: list[int]) -> None:
    channel = async_to_sync(channel_layer.new_channel)()
    async_to_sync(channel_layer.group_add)(run_group(RUN), channel)
    try:
        news.notify(RUN, head_step=3, last_seq=9)
        message = async_to_sync(channel_layer.receive)(channel)
    finally:
        async_to_sync(channel_layer.group_discard)(run_group(RUN), channel)
    assert message == {"type": RUN_UPDATED_EVENT, "head_step": 3, "last_seq": 9}
    assert heard == [RUN]


def test_the_news_is_sent_from_a_thread_whose_event_loop_is_running(
        channel_layer: Any, heard: list[int], caplog: pytest.LogCaptureFixture) -> None:
    """Synchronous code called from a running event loop's thread (an async caller; the web
    bench starts runs in Playwright's loop thread) notifies too: the send is handed to the
    sender loop instead of blocking, or being refused by, the caller's loop."""

    async def notify_from_the_loop() -> dict[str, Any]:
        channel = await channel_layer.new_channel()
        await channel_layer.group_add(run_group(RUN), channel)
        try:
            news.notify(RUN, head_step=4, last_seq=11)  # synchronous, inside the running loop
            return await asyncio.wait_for(channel_layer.receive(channel), timeout=10)
        finally:
            await channel_layer.group_discard(run_group(RUN), channel)

    with caplog.at_level(logging.WARNING):
        message = asyncio.run(notify_from_the_loop())
    assert message == {"type": RUN_UPDATED_EVENT, "head_step": 4, "last_seq": 11}
    assert heard == [RUN]
    assert [r.getMessage() for r in caplog.records] == []


def test_a_failing_subscriber_is_logged_and_the_others_are_still_told(
        channel_layer: Any, heard: list[int], caplog: pytest.LogCaptureFixture) -> None:
    def broken(*, run_id: int) -> None:
        raise RuntimeError("a follower's database is away")

    news.subscribe(broken)
    news.subscribe(broken)  # once, however often
    try:
        with caplog.at_level(logging.WARNING, logger=news.__name__):
            news.notify(RUN)
    finally:
        news.unsubscribe(broken)
    assert heard == [RUN]
    assert [r.getMessage() for r in caplog.records] == [f"run {RUN}: a follower of the run's news failed"]


def test_the_challenge_results_follow_the_news_from_start_up() -> None:
    from playground import apps

    assert apps._challenge_results_follow in news._listeners
