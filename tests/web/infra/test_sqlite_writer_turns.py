"""SQLite's writers take turns through playground.infra.sqlite_backend (a real database file, real
threads and a real second process): a transaction holds the turn from BEGIN to COMMIT or
ROLLBACK, a write outside a transaction holds it for its statement, a waiting thread gives up
with SQLite's own error after the connection's timeout, and a process that dies holding the
turn frees it. Also: JSON prepared before a transaction is stored as Django would store it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError, connection, connections, transaction

from playground.infra.bulk_insert import insert_prepared, prepare_rows
from playground.infra.sqlite_backend.write_lock import write_lock
from playground.models import Run, RunEvent, Scenario

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's writers only"),
]


def _lock() -> Any:
    return write_lock(str(connection.settings_dict["NAME"]))


def _free_for_another_thread() -> bool:
    """Can another thread of this process take the turn now? (It gives it back at once.)"""
    result: list[bool] = []

    def probe() -> None:
        lock = _lock()
        got = lock.acquire(timeout=0.05)
        if got:
            lock.release()
        result.append(got)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return result[0]


@contextlib.contextmanager
def _held_by_another_thread() -> Iterator[None]:
    """Another thread of this process holds the turn for the block."""
    lock = _lock()
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        assert lock.acquire(timeout=5)
        held.set()
        release.wait(10)
        lock.release()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(5)
        yield
    finally:
        release.set()
        thread.join(10)


def _scenario() -> Scenario:
    return Scenario.objects.create(name="turns")


def test_a_transaction_holds_the_turn_from_begin_to_commit() -> None:
    assert _free_for_another_thread()
    with transaction.atomic():
        _scenario()
        assert not _free_for_another_thread()
    assert _free_for_another_thread()
    assert Scenario.objects.filter(name="turns").exists()


def test_a_rolled_back_transaction_gives_the_turn_back() -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        _scenario()
        raise RuntimeError("undo")
    assert _free_for_another_thread()
    assert not Scenario.objects.filter(name="turns").exists()


def test_a_connection_closed_in_a_transaction_gives_the_turn_back() -> None:
    transaction.set_autocommit(False)
    try:
        connection._start_transaction_under_autocommit()
        assert not _free_for_another_thread()
        connection.close()
    finally:
        connection.connect()
    assert _free_for_another_thread()


def test_a_write_outside_a_transaction_waits_for_the_turn() -> None:
    scenario = _scenario()

    def writer() -> None:
        try:
            Scenario.objects.filter(pk=scenario.pk).update(name="renamed")
        finally:
            connections.close_all()

    second = threading.Thread(target=writer)
    with _held_by_another_thread():
        second.start()
        second.join(0.3)
        assert second.is_alive()  # waiting for the turn, not written
        assert Scenario.objects.get(pk=scenario.pk).name == "turns"
    second.join(10)
    assert not second.is_alive()
    assert Scenario.objects.get(pk=scenario.pk).name == "renamed"


def test_a_thread_gives_up_after_the_connections_timeout_with_sqlites_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", {**connection.settings_dict["OPTIONS"], "timeout": 0.2})
    with _held_by_another_thread(), pytest.raises(OperationalError, match="database is locked"), transaction.atomic():
        _scenario()
    assert not connection.in_atomic_block
    _scenario()  # the turn is free again; nothing was left half-held


def test_a_process_that_dies_holding_the_turn_frees_it() -> None:
    path = _lock().path
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         f"fd = os.open({path!r}, os.O_RDWR | os.O_CREAT)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('held', flush=True)\n"
         "time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        probe = os.open(path, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            child.kill()
            child.wait(10)
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: the kernel dropped it
            fcntl.flock(probe, fcntl.LOCK_UN)
        finally:
            os.close(probe)
    finally:
        child.kill()
        child.wait(10)
    with transaction.atomic():
        _scenario()


def test_prepared_json_is_stored_as_django_stores_it() -> None:
    run = Run.objects.create(scenario=_scenario(), scenario_name="turns", scenario_yaml="", seed=1)
    data = {"seq": 1, "type": "cycle_started", "pods": ["a", "b"], "score": 1.5, "none": None}
    plain = RunEvent(run=run, seq=1, step=0, type="cycle_started", data=data)
    prepared = prepare_rows(RunEvent, ("run", "seq", "step", "type", "data"), [(run.pk, 2, 0, "cycle_started", data)])
    assert isinstance(prepared.params[0][4], str)  # encoded before any transaction
    RunEvent.objects.bulk_create([plain])
    with transaction.atomic():
        assert insert_prepared(prepared) == 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, data FROM playground_runevent WHERE run_id = %s ORDER BY seq", [run.pk])
        stored = cursor.fetchall()
    assert stored[0][1] == stored[1][1]
    assert json.loads(stored[1][1]) == data
    assert [e.data for e in RunEvent.objects.filter(run=run).order_by("seq")] == [data, data]


def test_debug_mode_keeps_no_query_log_unless_asked(settings: Any) -> None:
    """With DEBUG on (./dev run) Django would log every query and, on SQLite, quote its
    parameters for that log with one more query; only a query count (force_debug_cursor) or
    PLAYGROUND_LOG_QUERIES turns the log on."""
    from django.db import reset_queries

    settings.DEBUG = True
    settings.PLAYGROUND_LOG_QUERIES = False
    reset_queries()
    Scenario.objects.filter(name="x").exists()
    assert not connection.queries_logged and connection.queries == []
    settings.PLAYGROUND_LOG_QUERIES = True
    Scenario.objects.filter(name="x").exists()
    assert connection.queries_logged and len(connection.queries) == 1
    settings.PLAYGROUND_LOG_QUERIES = False
    connection.force_debug_cursor = True
    try:
        assert connection.queries_logged
    finally:
        connection.force_debug_cursor = False
        reset_queries()
