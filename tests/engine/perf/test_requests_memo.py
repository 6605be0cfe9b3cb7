"""The requests memo (framework/requests_memo.py) answers exactly what a fresh computation
answers: for the same pod asked again, for a different pod with equal requests (the replicas of a
workload share one computation), and never across pods whose requests differ in any container,
init container, restart policy or overhead."""

from __future__ import annotations

import random
from fractions import Fraction

from scheduler_core.api.types import Container, Pod
from scheduler_core.framework import requests_memo
from scheduler_core.framework.types import (
    NON_ZERO_DEFAULTS,
    _pod_requests,
    pod_requests,
    pod_requests_derived,
)


def _pod(name: str, cpu: Fraction, mem: int, *, init: list[Container] | None = None,
         overhead: dict | None = None) -> Pod:
    return Pod(name, containers=[Container("app", requests={"cpu": cpu, "memory": Fraction(mem)})],
               init_containers=init or [], overhead=overhead or {})


def test_replicas_share_one_computation() -> None:
    requests_memo.clear()
    calls: list[str] = []

    def compute(p: Pod) -> tuple:
        calls.append(p.name)
        return tuple(sorted(_pod_requests(p, None).items()))

    a = _pod("a", Fraction(1, 4), 512 << 20)
    b = _pod("b", Fraction(1, 4), 512 << 20)  # equal requests, its own objects
    assert a.containers is not b.containers
    first = pod_requests_derived(a, "test/requests", compute)
    assert pod_requests_derived(a, "test/requests", compute) is first
    assert pod_requests_derived(b, "test/requests", compute) is first
    assert calls == ["a"]


def test_pods_that_differ_anywhere_are_computed_apart() -> None:
    requests_memo.clear()
    base = _pod("base", Fraction(1, 2), 1 << 30)
    others = [
        _pod("cpu", Fraction(1, 3), 1 << 30),
        _pod("mem", Fraction(1, 2), (1 << 30) + 1),
        _pod("init", Fraction(1, 2), 1 << 30, init=[Container("i", requests={"cpu": Fraction(2)})]),
        _pod("sidecar", Fraction(1, 2), 1 << 30,
             init=[Container("i", requests={"cpu": Fraction(2)}, restart_policy="Always")]),
        _pod("overhead", Fraction(1, 2), 1 << 30, overhead={"cpu": Fraction(1, 10)}),
        Pod("two", containers=[Container("a", requests={"cpu": Fraction(1, 4)}),
                               Container("b", requests={"cpu": Fraction(1, 4), "memory": Fraction(1 << 30)})]),
    ]
    keys = {requests_memo.requests_key(p) for p in [base, *others]}
    assert len(keys) == 1 + len(others)
    for p in [base, *others, base]:
        assert pod_requests(p) == _pod_requests(p, None)
        assert pod_requests(p, NON_ZERO_DEFAULTS) == _pod_requests(p, NON_ZERO_DEFAULTS)


def test_an_init_container_is_not_read_as_a_container() -> None:
    same = {"cpu": Fraction(1)}
    a = Pod("a", containers=[Container("x", requests=dict(same))],
            init_containers=[Container("y", requests=dict(same))])
    b = Pod("b", containers=[Container("x", requests=dict(same)), Container("y", requests=dict(same))])
    assert requests_memo.requests_key(a) != requests_memo.requests_key(b)
    assert pod_requests(a) != pod_requests(b)


def test_random_pods_asked_in_any_order_get_fresh_answers() -> None:
    requests_memo.clear()
    rng = random.Random(5)

    def quantity():
        return rng.choice([Fraction(rng.choice([100, 250, 500, 1000]), 1000), Fraction(rng.choice([1, 2]) << 30)])

    def container(i: int) -> Container:
        names = rng.sample(["cpu", "memory", "example.com/gpu"], rng.randint(0, 2))
        return Container(f"c{i}", requests={n: quantity() for n in names},
                         restart_policy=rng.choice([None, "Always"]))

    pods = [Pod(f"p{i}", containers=[container(j) for j in range(rng.randint(1, 2))],
                init_containers=[container(j) for j in range(rng.randint(0, 1))],
                overhead={"cpu": quantity()} if rng.random() < 0.2 else {}) for i in range(300)]
    for _ in range(3000):  # past both limits: entries are dropped and computed again
        p = rng.choice(pods)
        non_missing = rng.choice([None, NON_ZERO_DEFAULTS])
        assert pod_requests(p, non_missing) == _pod_requests(p, non_missing)
