"""Quantities to integers and a pod's summed requests, computed without intermediate Fractions,
give what the plain arithmetic gives (`math.ceil(q * 1000)`, `math.ceil(q)`, sums from 0)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from scheduler_core.api.types import Container, Pod
from scheduler_core.framework.types import _pod_requests, milli_value, value


def test_milli_value_and_value_equal_ceil() -> None:
    rng = random.Random(3)
    qs: list = [0, 1, -1, True, False, Fraction(0), Fraction(1, 3), Fraction(-7, 2), 0.5, -2.25, 1e-9]
    for _ in range(20000):
        qs.append(Fraction(rng.randint(-10**15, 10**15), rng.randint(1, 10**7)))
        qs.append(rng.randint(-10**12, 10**12))
    for q in qs:
        assert milli_value(q) == math.ceil(q * 1000), q
        assert value(q) == math.ceil(q), q
        assert type(milli_value(q)) is int and type(value(q)) is int


def _reference(pod: Pod, non_missing: dict | None) -> dict:
    """resourcehelper.PodRequests summed the plain way (from 0)."""
    def creqs(c: Container) -> dict:
        r = dict(c.requests)
        for k, v in (non_missing or {}).items():
            r.setdefault(k, v)
        return r

    reqs: dict = {}
    for c in pod.containers:
        for k, v in creqs(c).items():
            reqs[k] = reqs.get(k, 0) + v
    restartable: dict = {}
    init_max: dict = {}
    for c in pod.init_containers:
        cr = creqs(c)
        if c.restart_policy == "Always":
            for k, v in cr.items():
                reqs[k] = reqs.get(k, 0) + v
                restartable[k] = restartable.get(k, 0) + v
            cr = restartable
        else:
            cr = {**cr, **{k: cr.get(k, 0) + v for k, v in restartable.items()}}
        for k, v in cr.items():
            init_max[k] = max(init_max.get(k, -1), v)
    for k, v in init_max.items():
        if k not in reqs or v > reqs[k]:
            reqs[k] = v
    for k, v in pod.overhead.items():
        reqs[k] = reqs.get(k, 0) + v
    return reqs


def test_pod_requests_equal_plain_sums() -> None:
    rng = random.Random(11)

    def quantity():
        return rng.choice([Fraction(rng.randint(0, 4000), 1000), Fraction(rng.randint(0, 1 << 34)), rng.randint(0, 9)])

    def container(i: int) -> Container:
        names = rng.sample(["cpu", "memory", "ephemeral-storage", "example.com/gpu"], rng.randint(0, 3))
        return Container(f"c{i}", requests={n: quantity() for n in names},
                         restart_policy=rng.choice([None, None, "Always"]))

    for _ in range(400):
        pod = Pod("p", containers=[container(i) for i in range(rng.randint(0, 3))],
                  init_containers=[container(i) for i in range(rng.randint(0, 2))],
                  overhead={"cpu": quantity()} if rng.random() < 0.3 else {})
        for non_missing in (None, {"cpu": Fraction(1, 10), "memory": Fraction(200 << 20)}):
            got = _pod_requests(pod, non_missing)
            want = _reference(pod, non_missing)
            assert got == want
            assert {k: milli_value(v) for k, v in got.items()} == {k: math.ceil(v * 1000) for k, v in want.items()}
