"""A DRA selector is bounded as upstream bounds it: by length, by the API server's worst-case
cost estimate (refused at load) and by the actual cost counted while it runs (the evaluation
stops with cel-go's error)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.resource_types import Device, DeviceAttribute
from scheduler_core.dra.cel import CompiledSelector, device_activation
from scheduler_core.loader import load_scenario_text

ROOT = Path(__file__).resolve().parents[3]
ACT = device_activation("dra.example.com", Device("d", attributes={"name": DeviceAttribute("bool", True)},
                                                  capacity={}))


def numbers(n: int) -> str:
    return "[" + ",".join(str(i) for i in range(n)) + "]"


# The worst-case costs the API server computes for these (k8s.io/dynamic-resource-allocation/cel's
# own table of expected costs).
UPSTREAM_ESTIMATES = [
    ('device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', 6),
    ('device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', 6),
    ('"no-such-domain" in device.attributes', 3),
    ('device.driver == ""', 2),
    ('device.driver == "dra.example.com"', 4),
    ('device.attributes["dra.example.com"].name', 4),
    ('device.attributes["dra.example.com"]["name"]', 4),
    ('cel.bind(dra, device.attributes["dra.example.com"], dra.name)', 15),
    ('device.attributes["dra.example.com"].name > 0', 5),
    ('device.attributes["dra.example.com"].name == "fish"', 5),
    ('device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))', 6),
    ('device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', 6),
    ('"name" in device.capacity["dra.example.com"] && '
     'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', 10),
    ('!("name" in device.capacity["dra.example.com"]) || '
     'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', 11),
    (" &&\n".join([
        'device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki"))',
        'device.attributes["dra.example.com"].bool',
        'device.attributes["dra.example.com"].int > 0',
        'device.attributes["dra.example.com"].string == "fish"',
        'device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1"))',
        'device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki"))',
        'device.attributes["dra.example.com"]["bool"]',
        'device.attributes["dra.example.com"]["int"] > 0',
        'device.attributes["dra.example.com"]["string"] == "fish"',
        'device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))']), 52),
    ('device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && '
     'device.attributes["dra.example.com"].c', 12),
    ('device.attributes.exists_one(x, x == "dra.example.com")', 164),
    ('device.attributes["dra.example.com"].exists_one(x, x == "services")', 133),
    ('device.attributes["dra.example.com"].services.matches("[^a]?sym")', 18),
    ('device.capacity.exists_one(x, x == "dra.example.com")', 164),
    ('device.capacity["dra.example.com"].exists_one(x, x == "memory")', 133),
]


@pytest.mark.parametrize("expr,cost", UPSTREAM_ESTIMATES)
def test_the_estimate_is_the_api_servers(expr: str, cost: int) -> None:
    compiled = CompiledSelector(expr)
    assert compiled.error is None, compiled.error
    assert compiled.max_cost == cost


def test_a_loop_variable_is_as_big_as_its_source() -> None:
    # no fixed guess for the size of `l`: two nested loops over its N elements cost ~3N^2
    costs = {n: CompiledSelector(f"[{numbers(n)}].all(l, l.all(x, l.all(y, true)))").max_cost
             for n in (10, 20, 40)}
    assert costs[20] > 3.5 * costs[10] and costs[40] > 3.5 * costs[20]
    n1000 = CompiledSelector(f"[{numbers(1000)}].all(l, l.all(x, l.all(y, true)))")
    assert (n1000.error_kind, n1000.error) == ("forbidden", "too complex, exceeds cost limit")


def test_the_estimates_edge_is_upstreams_limit() -> None:
    # [0..N-1].all(x, [0..N-1].all(y, true)): 11 + N * (14 + 3N) estimated, 1 + N * (4 + 3N) run
    inside = CompiledSelector(f"{numbers(575)}.all(x, {numbers(575)}.all(y, true))")
    assert (inside.error, inside.max_cost) == (None, 999_936)
    assert inside.evaluate(ACT) == (True, 994_176, None)
    outside = CompiledSelector(f"{numbers(576)}.all(x, {numbers(576)}.all(y, true))")
    assert (outside.error_kind, outside.max_cost) == ("forbidden", 1_003_403)


@pytest.mark.parametrize("expr,cost", [
    ('device.driver == "dra.example.com"', 4),  # device, .driver, == on 15 characters
    ('device.driver == ""', 2),  # an empty string compares for free
    ('"no-such-domain" in device.attributes', 3),
    ('cel.bind(dra, device.attributes["dra.example.com"], dra.name)', 5),
    ('device.attributes.exists_one(x, x == "dra.example.com")', 9),
    ('[1,2,3].exists(x, x == 2)', 16),  # stops after the element that matched
    ('[1,2,3].all(x, x > 0)', 16),
    ('[1,2,3].map(x, x * 2) == [2,4,6]', 44),  # each [x * 2] is built: 10
    ('[1,2,3].filter(x, x > 1).size() == 2', 36),
    ('has(device.attributes["dra.example.com"].name)', 3),  # presence tests are free
])
def test_the_runtime_cost_is_counted_as_cel_go_counts_it(expr: str, cost: int) -> None:
    result, actual, err = CompiledSelector(expr).evaluate(ACT)
    assert (actual, err) == (cost, None)
    assert result is True or expr in ('device.driver == ""', '"no-such-domain" in device.attributes')


def test_an_evaluation_stops_exactly_past_its_budget() -> None:
    expr = f"{numbers(50)}.all(x, {numbers(50)}.exists(y, y == x))"
    result, cost, err = CompiledSelector(expr).evaluate(ACT)
    assert (result, err) == (True, None)
    assert CompiledSelector(expr, cost_limit=cost).evaluate(ACT) == (True, cost, None)
    stopped = CompiledSelector(expr, cost_limit=cost - 1)
    assert stopped.error is None  # the estimate is not this budget's business
    assert stopped.device_matches(ACT) == (False, "operation cancelled: actual cost limit exceeded")


def test_an_error_absorbed_by_or_does_not_hide_the_budget() -> None:
    expr = f"{numbers(30)}.all(x, 1 / (x - x) == 0) || true"
    result, cost, err = CompiledSelector(expr).evaluate(ACT)
    assert (result, err) == (True, None)  # division by zero, then `|| true`
    assert CompiledSelector(expr, cost_limit=cost - 1).device_matches(ACT) == (
        False, "operation cancelled: actual cost limit exceeded")


def test_regular_expressions_are_re2s() -> None:
    # linear matching, as cel-go's: no backtracking, so no back-references
    assert CompiledSelector('"' + "a" * 40 + '!".matches("(a+)+$")').device_matches(ACT) == (False, None)
    matches, err = CompiledSelector('"aa".matches("(a)\\\\1")').device_matches(ACT)
    assert matches is False and err.startswith("error parsing regexp")


@pytest.mark.parametrize("expr,fragment", [
    ("(" * 250 + "true" + ")" * 250, "expression recursion limit exceeded: 250"),
    ("+".join(["1"] * 300) + " > 0", "expression recursion limit exceeded: 250"),
    ("device.driver", "must evaluate to bool or the unknown type, not string"),
    ("nodevice.driver == 1", "undeclared reference to 'nodevice'"),
])
def test_what_the_compiler_refuses(expr: str, fragment: str) -> None:
    compiled = CompiledSelector(expr)
    assert compiled.error_kind == "invalid" and fragment in compiled.error


def test_deep_but_allowed_nesting_compiles_and_runs() -> None:
    compiled = CompiledSelector("(" * 249 + "true" + ")" * 249)
    assert compiled.device_matches(ACT) == (True, None)
    assert CompiledSelector("!" * 2000 + "true").device_matches(ACT) == (True, None)


CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel:
      expression: 'EXPR'
"""


@pytest.mark.parametrize("expr,message", [
    (f"[{numbers(1000)}].all(l, l.all(x, l.all(y, true)))", "Forbidden: too complex, exceeds cost limit"),
    ("device.driver == '" + "x" * 10_300 + "'", "Too long: may not be more than 10240 bytes"),
])
def test_the_loader_refuses_as_the_api_server_does(expr: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(CLASS.replace("EXPR", expr.replace("'", "''")), "dra.yaml")
    e = caught.value
    assert (e.document, e.kind, e.field) == (1, "DeviceClass", "spec.selectors[0].cel.expression")
    assert str(e).endswith(message)


def test_simulate_names_the_cost_and_exits_2(tmp_path: Path) -> None:
    scenario = tmp_path / "n1000.yaml"
    scenario.write_text(CLASS.replace("EXPR", f"[{numbers(1000)}].all(l, l.all(x, l.all(y, true)))") + textwrap.dedent("""\
        ---
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {capacity: {cpu: '8', memory: 32Gi}}
        """))
    proc = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(scenario)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "too complex, exceeds cost limit" in proc.stderr and "Traceback" not in proc.stderr


def test_a_cheap_doubling_list_is_stopped_before_it_fills_memory() -> None:
    # each `v + v` costs 1 (cel-go concatenates lists lazily): 40 doublings are within the budget
    expr = "[1, 2]"
    for i in range(40):
        expr = f"cel.bind(v{i}, {expr}, v{i} + v{i})"
    compiled = CompiledSelector(f"size({expr}) > 0")
    assert compiled.error is None
    matches, err = compiled.device_matches(ACT)
    assert matches is False and "exceeds 1048576" in err


@pytest.mark.parametrize("expr,cost", [
    # the failing list is still counted (10), so is the call given the error (1), then `|| true`
    ("size([1 / 0, 2]) == 2 || true", 1 + 10 + 1 + 1),
    # both arguments are evaluated before the error is the result: x == (1 / 0) costs x's 1
    ("[1].all(x, x == 1 / 0) || true", 2 + 1 + (1 + 1 + 1) + 1),
])
def test_errors_are_counted_where_cel_go_counts_them(expr: str, cost: int) -> None:
    assert CompiledSelector(expr).evaluate(ACT) == (True, cost, None)


def test_a_loop_over_a_scalar_attribute_fails_as_upstream_says() -> None:
    act = device_activation("dra.example.com", Device("d", attributes={"name": DeviceAttribute("int", 1)},
                                                      capacity={}))
    compiled = CompiledSelector('device.attributes["dra.example.com"].name.exists(x, x > 0)')
    assert compiled.error is None
    assert compiled.device_matches(act) == (False, "got 'types.Int', expected iterable type")
