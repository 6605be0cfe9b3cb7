"""CEL device selectors with the Kubernetes DRA environment."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_core.api.resource_types import Device, DeviceAttribute
from scheduler_core.dra.cel import compile_selector, device_activation

DEVICE = Device("gpu-0", attributes={
    "model": DeviceAttribute("string", "a100"), "index": DeviceAttribute("int", 3),
    "nvlink": DeviceAttribute("bool", True), "driverVersion": DeviceAttribute("version", "535.2.0"),
    "example.org/rack": DeviceAttribute("string", "r7"),
}, capacity={"memory": Fraction(40 * 2 ** 30), "cores": Fraction(3, 2)})
ACT = device_activation("gpu.example.com", DEVICE)


@pytest.mark.parametrize("expr,expected", [
    ('device.driver == "gpu.example.com"', True),
    ('device.driver == "tpu.example.com"', False),
    ('device.attributes["gpu.example.com"].model == "a100"', True),
    ('device.attributes["gpu.example.com"].index > 2 && device.attributes["gpu.example.com"].nvlink', True),
    ('device.attributes["example.org"].rack == "r7"', True),  # a qualified name keeps its own domain
    ('"example.org" in device.attributes', True),
    ('"model" in device.attributes["gpu.example.com"]', True),
    ('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) == 0', True),
    ('device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("32Gi"))', True),
    ('device.capacity["gpu.example.com"].memory.isLessThan(quantity("32Gi"))', False),
    ('device.capacity["gpu.example.com"].cores.compareTo(quantity("1500m")) == 0', True),
    ('device.capacity["gpu.example.com"].memory.sub(quantity("8Gi")).asInteger() == 34359738368', True),
    ('isQuantity("1Gi") && !isQuantity("x")', True),
    ('device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("535.0.0"))', True),
    ('device.attributes["gpu.example.com"].driverVersion.major() == 535', True),
    ('semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))', True),
    ('device.attributes["gpu.example.com"].model.upperAscii() == "A100"', True),
    ('" A1 ".trim().lowerAscii() == "a1"', True),
    ('device.attributes["gpu.example.com"].model.find("[0-9]+") == "100"', True),
    ('device.attributes["gpu.example.com"].model.matches("^a[0-9]+$")', True),
    ('[1, 2, 3].filter(x, x > 1).map(x, x * 10) == [20, 30]', True),
    ('{"a": 1}.exists(k, k == "a") && [1, 2].exists_one(x, x == 2)', True),
])
def test_selectors(expr: str, expected: bool) -> None:
    compiled = compile_selector(expr)
    assert compiled.error is None
    assert compiled.device_matches(ACT) == (expected, None)


def test_compile_error_and_cache() -> None:
    bad = compile_selector('device.driver == "x" &&')
    assert bad.error and bad.error.startswith("Syntax error")
    assert compile_selector('device.driver == "x" &&') is bad  # compiled once


@pytest.mark.parametrize("expr,fragment", [
    # an unknown domain reads as an empty map (upstream's attribute map default), so the
    # missing key is the attribute's
    ('device.attributes["nvidia.com"].model == "a"', "no such key: model"),
    ('dyn(device.driver)', "could not be converted to bool"),
    ('quantity("12zz").isGreaterThan(quantity("1"))', "invalid quantity"),
])
def test_runtime_errors(expr: str, fragment: str) -> None:
    matches, err = compile_selector(expr).device_matches(ACT)
    assert matches is False and fragment in err


def test_a_result_that_is_not_bool_is_refused_when_compiled() -> None:
    compiled = compile_selector("device.driver")
    assert compiled.error_kind == "invalid"
    assert "must evaluate to bool or the unknown type, not string" in compiled.error
