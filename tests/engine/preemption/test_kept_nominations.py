"""Lower-priority nominations on the chosen node (what the "Reading an older article?" page and
docs/async-edges.md teach, against upstream v1.35.4's preemption.go): the asynchronous path clears
them only when it starts its goroutine, i.e. when at least one victim still has to be deleted; with
every victim already terminating they are kept. The synchronous path (v1.30, and the v1.19-v1.24
articles) clears them after every preemption."""

from __future__ import annotations

import pytest

from scheduler_core.api.types import Pod
from scheduler_core.framework.plugins.defaultpreemption import DefaultPreemption
from scheduler_core.framework.preemption.preemption import Candidate, Victims
from tests.engine.preemption._fakes import FakeHandle, mk_node, mk_pod


def _setup(*, terminating: bool, asynchronous: bool) -> tuple[FakeHandle, DefaultPreemption, Candidate, str, Pod]:
    victim = mk_pod("victim", 2, 10, "n1")
    if terminating:
        victim.deletion_timestamp = 5.0
    nominee = mk_pod("nominee", 1, 50)  # lower than the preemptor, nominated to n1
    nominee.nominated_node_name = "n1"
    boss = mk_pod("boss", 2, 1000)
    handle = FakeHandle([mk_node("n1")], [victim, nominee, boss], nominated={"n1": [nominee]})
    plugin = DefaultPreemption(None, handle, enable_async_preemption=asynchronous)
    return handle, plugin, Candidate(Victims([victim]), "n1"), nominee.key, boss


@pytest.mark.parametrize("asynchronous", [True, False])
def test_a_victim_to_delete_clears_the_lower_nominations(asynchronous: bool) -> None:
    handle, plugin, candidate, nominee, boss = _setup(terminating=False, asynchronous=asynchronous)
    if asynchronous:
        plugin.evaluator.prepare_candidate_async(candidate, boss, "DefaultPreemption")
    else:
        assert plugin.evaluator.prepare_candidate(candidate, boss, "DefaultPreemption") is None
    assert ("clear", nominee) in handle.log and handle.preempted() == ["default/victim"]


def test_every_victim_terminating_keeps_them_when_asynchronous_only() -> None:
    handle, plugin, candidate, nominee, boss = _setup(terminating=True, asynchronous=True)
    plugin.evaluator.prepare_candidate_async(candidate, boss, "DefaultPreemption")
    assert handle.log == []  # no goroutine: nothing deleted, the nomination kept
    handle, plugin, candidate, nominee, boss = _setup(terminating=True, asynchronous=False)
    assert plugin.evaluator.prepare_candidate(candidate, boss, "DefaultPreemption") is None
    assert handle.log == [("clear", nominee)]
