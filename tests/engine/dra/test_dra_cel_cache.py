"""Compiled selectors are small, shared by expression text, and evicted by bytes."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from scheduler_core.dra import cel
from scheduler_core.dra.cel import CompiledSelector, compile_selector


def nine_kb(salt: int) -> str:
    """A distinct ~9 KB selector of attribute and capacity tests."""
    terms = []
    i = 0
    while sum(len(t) + 4 for t in terms) < 9000:
        terms.append(f'device.attributes["gpu.example.com"].model == "m-{salt}-{i}"' if i % 2 else
                     f'device.capacity["gpu.example.com"].memory.compareTo(quantity("{i}Gi")) >= 0')
        i += 1
    return " || ".join(terms)


def test_a_9kb_selector_compiles_to_well_under_a_megabyte() -> None:
    CompiledSelector("true")  # modules loaded
    text = nine_kb(1)
    gc.collect()
    tracemalloc.start()
    try:
        compiled = CompiledSelector(text)
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert compiled.error is None
    assert retained < 1024 * 1024  # cel-python's tree and program: ~15 MB
    # the size the cache charges is the same order as what is held
    assert retained / 3 < compiled.nbytes < retained * 3


def test_shared_by_text() -> None:
    assert compile_selector('device.driver == "a.example.com"') is compile_selector('device.driver == "a.example.com"')


def test_evicted_by_bytes_least_recently_used_first() -> None:
    one = CompiledSelector(nine_kb(2)).nbytes
    cache = cel._SelectorCache(budget=int(one * 3.5))
    first = cache.get(nine_kb(2))
    for salt in (3, 4, 5):
        cache.get(nine_kb(salt))
    assert cache.used <= cache.budget
    assert len(cache.entries) == 3
    assert nine_kb(2) not in cache.entries  # the oldest went
    assert cache.get(nine_kb(2)) is not first  # and is compiled again when asked for
    cache.get(nine_kb(4))  # used: now the most recent
    cache.get(nine_kb(6))
    assert nine_kb(4) in cache.entries and nine_kb(3) not in cache.entries


def test_one_entry_bigger_than_the_budget_is_still_served() -> None:
    cache = cel._SelectorCache(budget=10)
    compiled = cache.get("true")
    assert compiled.error is None and cache.get("true") is compiled


@pytest.mark.parametrize("raw,budget", [("", 64 * 2 ** 20), ("1048576", 2 ** 20), ("0", 0),
                                        ("lots", 64 * 2 ** 20), ("-5", 0)])
def test_the_budget_setting(monkeypatch: pytest.MonkeyPatch, raw: str, budget: int) -> None:
    monkeypatch.setenv("PLAYGROUND_CEL_CACHE_BYTES", raw)
    assert cel._cache_budget() == budget
