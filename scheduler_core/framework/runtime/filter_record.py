"""The compact record of one Filter walk: the `filter_verdicts` event.

A cycle over thousands of nodes gives few distinct outcomes ("passed every plugin",
"NodeResourcesFit: Insufficient cpu", ...). So each evaluated node gets an index into a table
of distinct verdict rows ({plugin: verdict}, the shape the inspector shows per node), built the
first time an outcome is seen; a node costs one list entry instead of a dict per plugin.
Decoding lives in scheduler_core/events/compact.py.

Two ways in: `add_status` from the status the walk already computed (the fast path: the row of
a status is implied, as run_filter_plugins stops at the first rejection), and `add_row` from a
row built plugin by plugin (the walk with nominated pods, whose row can mix two passes).
"""

from __future__ import annotations

import re
from typing import Any

from scheduler_core.events.compact import row_passes
from scheduler_core.framework.runtime import filter_chunk as fc
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.util.name_table import NameTable, TableRun
from scheduler_core.util.small_ints import PackedInts, SmallInts

CANCELLED_PLUGIN = "_"
CANCELLED_VERDICT = {"code": "Cancelled", "reasons": ["enough feasible nodes were found"]}
_SUCCESS = {"code": "Success"}
_SKIP = {"code": "Skip"}
_NOT_EVALUATED = {"code": "NotEvaluated"}
_FLAGGED = re.compile(rb"\x01+")  # a run of nodes whose row passes
FEASIBLE_NAMES_KEY = "trace/feasibleNames"  # CycleState: the walk's FeasibleNames, when recorded


class FeasibleNames:
    """What a recorded filter walk returned (the list of feasible NodeInfos, as an object) with
    their names as a run of the node list's name table (FilterRecord.feasible_run), or None.
    The Score phase's `scores` event takes the names from here when it scores that very list
    (no extender removed a node), instead of reading ~3,250 names off the nodes."""

    __slots__ = ("nodes", "names")

    def __init__(self, nodes: list[NodeInfo] | None, names: Any) -> None:
        self.nodes = nodes
        self.names = names

    def __reduce__(self) -> tuple[type, tuple[None, None]]:
        """A checkpoint of a cycle's state keeps neither: they name this process's walk."""
        return FeasibleNames, (None, None)

    def names_of(self, nodes: list[NodeInfo]) -> Any:
        """The names of `nodes` when they are the walk's feasible list itself, else None."""
        names = self.names
        if names is None or nodes is not self.nodes or len(names) != len(nodes):
            return None
        return names


class FilterRecord:
    """Collects one walk's verdicts; `fields` gives the event's payload.

    The row indexes are kept as bytes (one per evaluated node) while there are at most 256
    rows, as nearly always: a chunk's indexes are then made in C-level passes, and the
    feasible run (`feasible_run`) and the event's JSON text (util.small_ints.SmallInts) read
    those bytes instead of converting a list of ints. A walk that meets more distinct
    outcomes goes on in a list of ints."""

    __slots__ = ("plugins", "skipped", "nodes", "walked", "_packed", "_wide", "rows", "_index", "num_feasible")

    def __init__(self, plugins: list[str], skipped: set[str] | frozenset[str]) -> None:
        self.plugins = plugins
        self.skipped = skipped
        self.nodes: list[str] = []  # the evaluated nodes' names, walk order: set by `fields`
        # The evaluated nodes as they came: a chunk's NodeInfos (their names are read only if
        # `fields` cannot take them from a name table), a name for a node added on its own.
        self.walked: list[NodeInfo | str] = []
        self._packed = bytearray()  # the row index of each evaluated node, while all are < 256
        self._wide: list[int] | None = None  # instead, once a row index is 256 or more
        self.rows: list[dict[str, Any]] = []
        self._index: dict[Any, int] = {}
        self.num_feasible = 0

    @property
    def outcome(self) -> list[int]:
        """The row index of each evaluated node, walk order (the event's `outcome`): a
        SmallInts carrying its bytes, so its JSON text is made from them."""
        if self._wide is not None:
            return SmallInts(self._wide)
        packed = bytes(self._packed)
        out = SmallInts(packed)
        out.packed = packed
        return out

    def _intern(self, key: Any, build: Any) -> int:
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.rows)
            self.rows.append(build())
        return i

    def _put(self, i: int) -> None:
        if self._wide is None and i < 256:
            self._packed.append(i)
        else:
            self._widen().append(i)

    def _widen(self) -> list[int]:
        if self._wide is None:
            self._wide = list(self._packed)
        return self._wide

    def _key(self, st: Status | None) -> Any:
        return None if st is None or st.code == Code.SUCCESS else (st.plugin, st.code, tuple(st.reasons))

    def add_status(self, node: str, st: Status | None) -> None:
        """A node whose run_filter_plugins result is `st` (None or Success: it passed)."""
        self.walked.append(node)
        self._put(self._intern(self._key(st), lambda: self._implied_row(st)))

    def add_chunk(self, nodes: list[NodeInfo], sts: list[Status | None]) -> None:
        """`add_status` for each node of a chunk and its status, in order, each distinct status
        object looked up once: the rows are interned in the order their outcomes first appear,
        as node after node would intern them, and the indexes are made in C-level passes. When
        few nodes have a status (a chunk passed nearly everywhere), only those are visited."""
        n = len(sts)
        self.walked.extend(nodes)
        marked = fc.positions(sts)  # the nodes with a Status (rejected, or a Success-coded one)
        if len(marked) * fc.FEW <= n and self._wide is None:
            first_none = _first_gap(marked, n)
            row_of: dict[Status | None, int] = {}
            for p in marked:
                if p > first_none and None not in row_of:
                    row_of[None] = self._intern(None, lambda: self._implied_row(None))
                st = sts[p]
                if st not in row_of:
                    row_of[st] = self._intern(self._key(st), lambda st=st: self._implied_row(st))
            if first_none < n and None not in row_of:
                row_of[None] = self._intern(None, lambda: self._implied_row(None))
            if all(i < 256 for i in row_of.values()):
                chunk = bytearray((row_of[None],)) * n if first_none < n else bytearray(n)
                for p in marked:
                    chunk[p] = row_of[sts[p]]
                self._packed += chunk
                return
            self._widen().extend(map(row_of.__getitem__, sts))
            return
        row_of = {}
        for st in dict.fromkeys(sts):
            row_of[st] = self._intern(self._key(st), lambda st=st: self._implied_row(st))
        if self._wide is None and len(self.rows) <= 256:
            self._packed += bytes(map(row_of.__getitem__, sts))
        else:
            self._widen().extend(map(row_of.__getitem__, sts))

    def add_statuses(self, nodes: list[NodeInfo], sts: list[Status | None]) -> None:
        """A chunk of nodes and their statuses, in walk order."""
        for ni, st in zip(nodes, sts, strict=True):
            self.add_status(ni.name, st)

    def add_passed(self, nodes: list[NodeInfo]) -> None:
        """A chunk of nodes that all passed."""
        i = self._intern(None, lambda: self._implied_row(None))
        self.walked.extend(nodes)
        if self._wide is None and i < 256:
            self._packed += bytes((i,)) * len(nodes)
        else:
            self._widen().extend([i] * len(nodes))

    def add_cancelled(self, node: NodeInfo | str) -> None:
        """The node that passed after enough feasible nodes were found (the walk stops there):
        its NodeInfo (then `fields` matches the whole walk to the node list in one comparison)
        or its name."""
        self.walked.append(node)
        self._put(self._intern("cancelled", lambda: {CANCELLED_PLUGIN: dict(CANCELLED_VERDICT)}))

    def add_row(self, node: str, row: dict[str, Any]) -> None:
        """A node with its verdicts built plugin by plugin."""
        key = ("row",) + tuple((p, v["code"], tuple(v.get("reasons", ())), bool(v.get("withNominatedPods")))
                               for p, v in row.items())
        self.walked.append(node)
        self._put(self._intern(key, lambda: row))

    def _implied_row(self, st: Status | None) -> dict[str, Any]:
        """What run_filter_plugins_verbose reports for a node with result `st`: Success up to
        the rejecting plugin, its verdict, NotEvaluated after; skipped plugins say Skip."""
        row: dict[str, Any] = {}
        rejected = False
        for name in self.plugins:
            if name in self.skipped:
                row[name] = dict(_SKIP)
            elif rejected:
                row[name] = dict(_NOT_EVALUATED)
            elif st is not None and st.code != Code.SUCCESS and st.plugin == name:
                row[name] = {"code": st.code.label, "reasons": list(st.reasons)}
                rejected = True
            else:
                row[name] = dict(_SUCCESS)
        return row

    def fields(self, nodes: list[NodeInfo], start: int, table: NameTable | None = None,
               text_only: bool = False) -> dict[str, Any]:
        """The event's payload: evaluated nodes (walk order) with their row index, the rows,
        how many of them are feasible, and how many nodes of the list the walk never reached
        (which ones follows from the list: see events.compact.not_evaluated_nodes).
        `table`, the names of `nodes` when known, lets the node list share its JSON text: when
        the walk went over `nodes` from `start` (checked on the NodeInfos themselves), the
        names are the table's run, and no node's name is read. `text_only` (only a JSON writer
        reads the event: EventSink.text_only): the names and row indexes are stand-ins that
        give their text (NameSpan, PackedInts), no lists of thousands of items."""
        n, k = len(nodes), len(self.walked)
        if table is not None and len(table.names) == n and self._walked_from(nodes, start):
            segments = [(start, min(n, start + k)), (0, max(0, start + k - n))]
            self.nodes = table.span(segments) if text_only else table.run(segments)
        else:
            self.nodes = [x if type(x) is str else x.name for x in self.walked]
        outcome = PackedInts(bytes(self._packed)) if text_only and self._wide is None else self.outcome
        return {"nodes": self.nodes, "outcome": outcome, "verdicts": self.rows,
                "num_feasible": self.num_feasible, "num_not_evaluated": max(0, n - k)}

    def _walked_from(self, nodes: list[NodeInfo], start: int) -> bool:
        """Whether the evaluated nodes are nodes[start], nodes[start + 1], ... (wrapping around):
        a C-level comparison of the NodeInfos (by identity), the names compared only for the
        nodes added by name."""
        walked, n = self.walked, len(nodes)
        k = len(walked)
        if k > n:
            return False
        expected = nodes[start:start + k] + nodes[:start + k - n] if start + k > n else nodes[start:start + k]
        if walked == expected:
            return True
        if type(walked[-1]) is str and walked[-1] == expected[-1].name and walked[:-1] == expected[:-1]:
            return True  # the cancelled node, added by name
        return all(w is e or w == e.name for w, e in zip(walked, expected, strict=True))

    def feasible_run(self) -> Any:
        """The feasible nodes (the first num_feasible whose row passes, in walk order) picked
        from the walked nodes when `fields` matched the walk to a table (TableRun.select: runs
        of the table, or a pick cut from the walk's text), else None. The cycle's scored
        nodes and ties are then copied from the table's text instead of being encoded name by
        name (schedule_one, events.jsonl). Found with C-level passes: a byte per node says
        whether its row passes."""
        nodes = self.nodes
        if not isinstance(nodes, TableRun) or nodes.table is None or self._wide is not None:
            return None
        passing = bytes(row_passes(row) for row in self.rows)
        flags = bytes(self._packed).translate(passing + bytes(256 - len(passing)))
        left = self.num_feasible
        if flags.count(1) > left:  # keep the first num_feasible passing nodes only
            end = 0
            for m in _FLAGGED.finditer(flags):
                a, b = m.span()
                if b - a >= left:
                    end = a + left
                    break
                left -= b - a
            flags = flags[:end] + bytes(len(flags) - end)
        return nodes.select(flags)


def _first_gap(marked: list[int], n: int) -> int:
    """The first position in 0..n-1 not in `marked` (sorted, distinct), or n."""
    for k, p in enumerate(marked):
        if p != k:
            return k
    return min(len(marked), n)
