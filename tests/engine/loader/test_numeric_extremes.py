"""Numbers at and past the limits of Kubernetes' fields, everywhere a scenario may hold one.

The loader either accepts a scenario or refuses it with a located ScenarioError (document and
field, or line): never another exception (a 5,000-digit integer used to escape as Python's
ValueError from the YAML constructor, a 5,000-digit quantity from the quantity parser), never
an unbounded message. The fuzz is seeded and bounded: the same cases on every run.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from scheduler_core.__main__ import main
from scheduler_core.api.errors import ScenarioError
from scheduler_core.api.quantity import QuantityError, parse_quantity
from scheduler_core.loader import CLI_LIMITS, load_scenario_text

ROOT = Path(__file__).resolve().parents[3]
GALLERY = sorted((ROOT / "playground" / "gallery").glob("*.yaml"))
BIG = "9" * 5000

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: default}}
spec:
  replicas: {value}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: nginx}}]
"""

# Numbers as YAML text: the edges of int32/int64, past them, integers too long to convert
# (decimal, hexadecimal, base 60), floats that read as infinity, quantities past the largest.
EXTREMES = [
    "0", "-1", "1.5", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
    "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1" + "0" * 40,
    "9" * 4300, "9" * 4301, BIG, "-" + BIG, "0x" + "f" * 4000, ":".join(["59"] * 2500),
    BIG + ".5", "1e308", "1e400", ".inf", "-.inf", ".nan",
    '"1e19"', '"99999999999999999999Ei"', f'"{BIG}"', f'"0.{BIG}"', f'"0.{BIG}Ki"', f'"{BIG}m"',
    '"1e2147483648"', '"-0.000000000000000000000000000000000001"',
]
OVERSIZED = {"9" * 4301, BIG, "-" + BIG, "0x" + "f" * 4000, ":".join(["59"] * 2500)}
# A value after `key: ` that is a number, a quoted quantity or a quoted number.
NUMBER_SLOT = re.compile(r"(?m)(?<=: )(?:-?[0-9][0-9.]*[a-zA-Z]{0,2}|'[0-9][0-9.]*[a-zA-Z]{0,2}'"
                         r'|"[0-9][0-9.]*[a-zA-Z]{0,2}")(?=\s*(?:$|[,}\]]))')


def _assert_located(error: ScenarioError, source: str) -> None:
    assert error.file == source
    assert error.line is not None or error.document is not None or error.field is not None, str(error)


@pytest.mark.parametrize("value", EXTREMES, ids=range(len(EXTREMES)))
def test_replicas_extremes_located(value: str) -> None:
    """Every extreme in one int32 field: accepted within the range, else refused naming it."""
    text = DEPLOYMENT.format(value=value)
    try:
        load_scenario_text(text, source="d.yaml", limits=CLI_LIMITS)
    except ScenarioError as error:
        _assert_located(error, "d.yaml")
        assert error.field == "spec.replicas", str(error)[:300]
        assert error.kind == "Deployment"
        assert len(str(error)) < 300, f"an unbounded message: {str(error)[:300]}"
        return
    assert value in ("0", "-1") or value.isdigit() and int(value) <= 150_000, f"{value[:30]} accepted"


@pytest.mark.parametrize("value", sorted(OVERSIZED), ids=range(len(OVERSIZED)))
def test_oversized_integer_refused_with_its_field(value: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(DEPLOYMENT.format(value=value), source="d.yaml")
    error = info.value
    assert (error.document, error.kind, error.name, error.field, error.line) == (
        1, "Deployment", "default/web", "spec.replicas", 5)
    assert "too large" in error.reason and "64 bits" in error.reason


def test_cli_refuses_a_5000_digit_integer_without_traceback(tmp_path, capsys) -> None:
    f = tmp_path / "big.yaml"
    f.write_text(DEPLOYMENT.format(value=BIG))
    assert main(["simulate", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and err.count("\n") == 1
    assert err.startswith(f"error: {f}: line 5: document 1 (Deployment default/web): spec.replicas: ")


@pytest.mark.parametrize("text", [BIG, f"0.{BIG}", f"{BIG}Ki", f"-{BIG}n", f"0.{BIG}Ki", f"{BIG}e-4990"])
def test_quantity_of_thousands_of_digits_parses_or_refuses(text: str) -> None:
    """Refused as too large, capped (binary) or rounded up to 1n, as its magnitude says: never
    Python's int conversion error."""
    try:
        value = parse_quantity(text)
    except QuantityError as exc:
        assert "too large" in str(exc)
        return
    assert value == Fraction(2**63 - 1) or abs(value) <= 10**40


def test_quantity_digits_past_the_kept_ones_still_round_up() -> None:
    # 1n plus something in the 5,000th place: the sticky digit keeps the round-up.
    assert parse_quantity("0.000000001" + "0" * 5000 + "1") == Fraction(2, 10**9)
    assert parse_quantity("0.000000001" + "0" * 5000) == Fraction(1, 10**9)
    assert parse_quantity("1." + "0" * 100 + "1") == Fraction(1) + Fraction(1, 10**9)
    assert parse_quantity("0.5" + "0" * 5000 + "Ki") == Fraction(512)


def _in_comment(text: str, at: int) -> bool:
    return "#" in text[text.rfind("\n", 0, at) + 1:at]


def _mutations(seed: int, count: int) -> list[tuple[str, str, str]]:
    """(gallery file, mutated text, extreme) cases: one or two number slots of a real scenario
    replaced by extremes, chosen by a seeded generator."""
    rng = random.Random(seed)
    texts = [(p.name, p.read_text(encoding="utf-8")) for p in GALLERY]
    slotted = [(name, text, [m for m in NUMBER_SLOT.finditer(text) if not _in_comment(text, m.start())])
               for name, text in texts]
    slotted = [s for s in slotted if s[2]]
    cases = []
    for _ in range(count):
        name, text, slots = rng.choice(slotted)
        chosen = sorted(rng.sample(slots, min(len(slots), rng.choice((1, 1, 2)))), key=lambda m: m.start())
        extreme = rng.choice(EXTREMES)
        out, last = [], 0
        for m in chosen:
            out += [text[last:m.start()], extreme]
            last = m.end()
        out.append(text[last:])
        cases.append((name, "".join(out), extreme))
    return cases


def test_gallery_fuzzed_with_numeric_extremes() -> None:
    """300 seeded mutations of the gallery's scenarios: each loads or is refused, located; an
    oversized integer is always refused, naming a field."""
    assert len(GALLERY) >= 10
    refused = accepted = 0
    for name, text, extreme in _mutations(seed=38, count=300):
        try:
            load_scenario_text(text, source=name, limits=CLI_LIMITS)
        except ScenarioError as error:
            _assert_located(error, name)
            refused += 1
            if extreme in OVERSIZED:
                assert error.field and error.line is not None and "too large" in error.reason, str(error)[:300]
            continue
        assert extreme not in OVERSIZED, f"{name}: an oversized integer was accepted"
        accepted += 1
    assert refused > 100 and accepted > 10  # the fuzz reaches both outcomes


def test_run_scale_action_refuses_replicas_past_int32() -> None:
    """The run's scaleDeployment action (the web's cluster form) names the int32 range before
    any count of pods."""
    from scheduler_core.actions.scale_deployment import scale_deployment
    from scheduler_core.simulation import Simulation

    sim = Simulation(load_scenario_text(DEPLOYMENT.format(value=1)))
    with pytest.raises(ScenarioError) as info:
        scale_deployment(sim, {"action": "scaleDeployment", "name": "web", "replicas": 2**31}, 0)
    assert (info.value.field, info.value.reason) == ("replicas", "Invalid value: 2147483648: out of range for int32")
