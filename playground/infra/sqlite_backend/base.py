"""Django's SQLite backend whose writers take turns through `write_lock` instead of SQLite's
busy handler (why: write_lock's docstring).

A transaction (`BEGIN IMMEDIATE`: settings' transaction_mode) takes the turn before it begins
and gives it back when it commits, rolls back or its connection closes; a write outside any
transaction (a single UPDATE, INSERT or DELETE in autocommit) holds it for that statement. An
in-memory database has one connection and needs none of this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import OperationalError
from django.db.backends.sqlite3 import base as sqlite3_base

from playground.infra.sqlite_backend.write_lock import WriteLock, forks, write_lock

_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class TurnCursor(sqlite3_base.SQLiteCursorWrapper):
    """Holds the write turn around a write statement run outside a transaction."""

    turn: DatabaseWrapper | None = None

    def execute(self, query: str, params: Any = None) -> Any:
        if self._needs_turn(query):
            with self.turn.write_turn():  # type: ignore[union-attr]
                return super().execute(query, params)
        return super().execute(query, params)

    def executemany(self, query: str, param_list: Any) -> Any:
        if self._needs_turn(query):
            with self.turn.write_turn():  # type: ignore[union-attr]
                return super().executemany(query, param_list)
        return super().executemany(query, param_list)

    def _needs_turn(self, query: str) -> bool:
        return (
            self.turn is not None
            and not self.turn.holds_turn
            and not self.connection.in_transaction
            and query.lstrip()[:7].upper().startswith(_WRITES)
        )


class DatabaseWrapper(sqlite3_base.DatabaseWrapper):
    holds_turn = False
    _turn_lock: tuple[int, WriteLock] | None = None  # (forks() when looked up, the lock)

    @property
    def queries_logged(self) -> bool:
        """Django logs every query while DEBUG is on (as `./dev run` has it, so the development
        server serves the static files), and on SQLite it quotes each query's parameters for
        that log with one more query: about a twentieth of a class's web CPU, and as much again
        in the workers. Only when asked: a query count in a test or a bench (Django's
        `force_debug_cursor`), or PLAYGROUND_LOG_QUERIES."""
        return self.force_debug_cursor or bool(getattr(settings, "PLAYGROUND_LOG_QUERIES", False))

    def _lock(self) -> WriteLock | None:
        """This database file's turn lock (looked up once per connection object and process)."""
        if self.is_in_memory_db():
            return None
        if self._turn_lock is None or self._turn_lock[0] != forks():
            self._turn_lock = (forks(), write_lock(str(self.settings_dict["NAME"])))
        return self._turn_lock[1]

    def _take_turn(self) -> None:
        lock = self._lock()
        if lock is None or self.holds_turn:
            return
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        if not lock.acquire(timeout):
            raise OperationalError("database is locked")
        self.holds_turn = True

    def _give_turn(self) -> None:
        if self.holds_turn:
            self.holds_turn = False
            lock = self._lock()
            if lock is not None:
                lock.release()

    @contextlib.contextmanager
    def write_turn(self) -> Iterator[None]:
        self._take_turn()
        try:
            yield
        finally:
            self._give_turn()

    def create_cursor(self, name: str | None = None) -> Any:
        cursor = self.connection.cursor(factory=TurnCursor)
        cursor.turn = self
        return cursor

    def _start_transaction_under_autocommit(self) -> None:
        self._take_turn()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._give_turn()
            raise

    def _commit(self) -> Any:
        try:
            return super()._commit()
        finally:
            self._give_turn()

    def _rollback(self) -> Any:
        try:
            return super()._rollback()
        finally:
            self._give_turn()

    def _close(self) -> Any:
        try:
            return super()._close()
        finally:
            self._give_turn()
