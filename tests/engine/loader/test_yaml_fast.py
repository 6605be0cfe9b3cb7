"""The compiled YAML fast path gives exactly what PyYAML's strict loader gives, or steps aside.

`yaml_fast.fast_decode` either returns the documents the strict loader would build (same
values, same types, same key order) or None. Checked on every YAML file of the repository (and
of the shared conformance cases when present), on a corpus of edge cases where the two parsers
are known to differ, and through the whole loader: same Scenario, same errors (duplicate key,
misspelled field, bad type, syntax) with the same file, document, object, field and line.
"""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest
from helpers import NODE, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import CLI_LIMITS, load_scenario_text, yaml_input
from scheduler_core.loader.yaml_fast import fast_decode
from scheduler_core.loader.yaml_input import MAX_NESTING_DEPTH, decode_yaml

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "conformance"
FILES = sorted({*ROOT.glob("playground/**/*.yaml"), *ROOT.glob("tests/**/*.yaml"),
                *ROOT.glob("examples/**/*.yaml"), *SHARED.glob("**/*.yaml")})


def _strict(text: str):
    """The strict loader alone (the fast path switched off)."""
    saved = yaml_input.fast_decode
    yaml_input.fast_decode = lambda text, depth: None
    try:
        return decode_yaml(text, "s.yaml")
    finally:
        yaml_input.fast_decode = saved


def _same_or_none(text: str) -> bool:
    """Assert the fast path agrees with the strict loader; True when it was taken."""
    fast = fast_decode(text, MAX_NESTING_DEPTH)
    try:
        docs, duplicates = _strict(text)
    except ScenarioError:
        assert fast is None, "the fast path accepted a text the strict loader refuses"
        return False
    if fast is None:
        return False
    assert not duplicates, "the fast path accepted a duplicate key"
    assert repr(fast) == repr(docs)  # repr tells 1 from 1.0 and True, and shows key order
    return True


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(p.parents[1])) for p in FILES])
def test_repository_yaml_reads_alike(path):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: refused before any parser")
    _same_or_none(text)


def test_fast_path_is_taken_for_ordinary_scenarios():
    gallery = sorted(ROOT.glob("playground/gallery/*.yaml"))
    taken = sum(_same_or_none(p.read_text(encoding="utf-8")) for p in gallery)
    assert gallery and taken >= len(gallery) // 2, (taken, len(gallery))
    dump = "\n---\n".join([NODE] + [pod(name=f"p{i}") for i in range(50)])
    assert _same_or_none(dump)


# Plain scalars PyYAML (YAML 1.1) and yaml_rs read differently, and constructs only one of them
# accepts: the fast path must step aside for each, in any position.
DIFFERENT = [
    "yes", "Yes", "NO", "on", "Off", "08", "0777", "0o17", "0X1F", "0B101", "_1", "1:30",
    "-1:30", "190:20:30", "1:30.5", "1e3", "1E3", "1e+3", "1.5e3", "1.5e03", "-.5", "+.5",
    "._1", "0.1e+1_0", "2001-12-14", "2001-12-14T21:59:43Z", "2001-12-14 21:59:43.10 -5", "=",
    "!custom x", "&a x", '"\\uD83D\\uDE00"', "12:30:45",
]


@pytest.mark.parametrize("scalar", DIFFERENT)
@pytest.mark.parametrize("shape", ["a: {}\n", "- {}\n", "a: [b, {}]\n", "a: {{b: {}}}\n",
                                   "{}: a\n", "---\nb: 1\n---\nc: [{}]\n"])
def test_scalars_read_otherwise_take_the_strict_loader(scalar, shape):
    text = shape.format(scalar)
    assert fast_decode(text, MAX_NESTING_DEPTH) is None
    _same_or_none(text)


EDGES = [
    "", "# only a comment\n", "---\n", "---\n---\na: 1\n", "a: 1\n---\n", "- 1\n- 2\n",
    "---\n- 1\n", "# c\n---\na: 1\n", "a: 1\n---\nb: 2\n---\n- x\n",
    "a: [1, 2, ]\nb: {c: 1, }\nc: [d: 1]\nd: {e}\n", "a:\n- b\n-\n- c\n", "- - a\n  - b\n- c\n",
    "a: b:c\nd: http://x.y/z?q=1#f\ne: x#y\nf: -x\ng: :x\nh: ?x\n",
    'a: "\\0\\a\\b\\t\\n\\v\\f\\e\\ \\"\\/\\\\\\N\\_\\L\\P\\x41\\u00e9\\U0001F600"\n',
    'a: "line1\n  line2\n\n  line3"\n', "a: 'x\n\n  y'\n", "a: x\n  y\n\n  z\n",
    "a: |\n  x\n  y\n", "a: |-\n  x\n\n", "a: |+\n  x\n\n", "a: >\n  x\n  y\n\n  z\n",
    "a: >-\n  x\n   y\n  z\n", "a: |2\n   x\n", "a: >\n\n  x\n", "a: |\n  # no comment\n  x\n# c\nb: 1\n",
    'a: "x\\\n  y"\n', "é: ü\n", "a: 'it''s'\n", '"quoted key": v\n', "key with spaces: v\n",
    'a: {"b":1}\n', 'a: ["b":1]\n', "a: [x\n, y]\n", "a: { x: 1,\n y: 2 }\n",
    "a: 0\nb: -0\nc: 00\nd: 01\ne: 07\nf: 20011214\ng: 12345678901234567890\nh: -17\n",
    "a: 1.\nb: -1.\nc: 0.\nd: 01.5\ne: 1.5e+3\nf: 1.5E-3\ng: .5\nh: 3.10\ni: 1_000.5\n",
    "a: .inf\nb: -.inf\nc: .NaN\nd: inf\ne: nan\n",
    "a: +12\nb: -0.0\nc: +1.5\nd: +0.\ne: 1.5e-3\nf: 1.0e+999\ng: 3.14159265358979323846\n"
    "h: 0.1\ni: -123456789012345678\nj: 2.5e-324\nk: [+7, -7., .25e+2]\n", "a: ~\nb: null\nc: Null\nd:\ne: NULL\n",
    "a: true\nb: False\nc: TRUE\nd: y\ne: n\n", "a: 100m\nb: 128Mi\nc: 1.25.3\nd: 10.0.0.1\n",
    "a: 7d9f8c6b5\nb: 0x1F\nc: 1_000\nd: 0b101\n",
    "a: 10.0.0.1\nb: 1.2.3e5\nc: [0.0.0.0, 1..]\nd: 1.2.3:4\ne: -1.2.3\nf: 0x1.2.3\ng: .1.2\n", "1: a\n", "~: a\n", "true: a\n", "1.5: a\n",
    "{a: 1}: b\n", "[a]: b\n", "a: 1\na: 2\n", '"a": 1\na: 2\n', "a: 1\n'a': 2\n",
    "a: &x {b: 1}\nc: *x\n", "a:\n  <<: {b: 1}\n  c: 2\n", "a: !!str 1\n", "...\n",
    "a: b\n---\nc: d\n...\n", "%YAML 1.1\n---\na: 1\n", "--- a\n", "--- {a: 1}\n",
    "a: b\r\nc: d\r\n", "a:\tb\n", 'a: "x\u2028y"\n', "a: x\x85y\n", "a: <<\n", "? a\n: b\n",
    ": a\n", "a: x\n  yes\n", "a: 'x'y'\n", 'a: "x\\q"\n', "a: |\n  x\n b\n", "a: x:\n",
    "a: 1\n  b: 2\n", "  a: 1\n  b: 2\n", "a: b\n---\n- c\n--- |\n  text\n",
    "a:\n" + "".join(" " * (2 * i + 2) + "b:\n" for i in range(60)),
    "a: " + "[" * 120 + "]" * 120 + "\n",
    "a:\n" + "".join(" " * (2 * i + 2) + "b:\n" for i in range(20)) + " " * 42 + "c: 1\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_read_alike(text):
    _same_or_none(text)


def test_json_dump_takes_the_fast_path():
    """kubectl -o json: deep indentation, but the nesting is the brackets'."""
    import json

    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "labels": {
        "app": "web", "k": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": [1, 2.5, None, True]}}}}}}}}}},
        "spec": {"containers": [{"name": "app", "image": "x:1.2.3", "resources": {
            "requests": {"cpu": "100m", "memory": "1Gi"}}}]}} for i in range(20)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}, indent=4)
    assert "\n" + " " * 52 in text  # beyond what the block bound measures
    assert _same_or_none(text)
    deep = json.dumps({"a": [[[[[[[[[[1]]]]]]]]]] * 3})
    assert _same_or_none("[" * 95 + deep + "]" * 95) is False


def test_deep_nesting_is_left_to_the_strict_loader():
    deep = "a:\n" + "".join(" " * (i + 1) + "b:\n" for i in range(150))
    assert fast_decode(deep, MAX_NESTING_DEPTH) is None
    with pytest.raises(ScenarioError) as info:
        decode_yaml(deep, "d.yaml")
    assert "nesting is deeper" in str(info.value) and info.value.line is not None


# --- the whole loader: same Scenario, same located errors -------------------------------------

SCENARIOS = sorted(ROOT.glob("playground/gallery/*.yaml")) + sorted(SHARED.glob("cases/*.yaml"))


def _load_both(text: str, monkeypatch: pytest.MonkeyPatch):
    """(fast result, strict result): a Scenario or the ScenarioError's text."""
    def run():
        try:
            sc = load_scenario_text(text, source="s.yaml", limits=CLI_LIMITS)
        except ScenarioError as e:
            return "error", str(e), (e.file, e.document, e.kind, e.name, e.field, e.line)
        return "ok", repr(dataclasses.asdict(sc)), None
    fast = run()
    with monkeypatch.context() as m:
        m.setattr(yaml_input, "fast_decode", lambda text, depth: None)
        strict = run()
    return fast, strict


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_same_scenario(path, monkeypatch):
    fast, strict = _load_both(path.read_text(encoding="utf-8"), monkeypatch)
    assert fast == strict


BASE = [NODE, pod(name="a"), pod(name="b")]


def _join(*docs: str) -> str:
    return "\n---\n".join(textwrap.dedent(d) for d in docs)


ERRORS = {
    "duplicate key": (_join(NODE, pod().replace(
        "{name: app, image: pause}",
        "{name: app, image: pause, resources: {requests: {cpu: '1', cpu: '2'}}}")),
        'duplicate key "cpu"', 13),
    "duplicate key across quoting": (_join(NODE, pod(meta="labels: {a: '1', 'a': '2'}")),
                                     'duplicate key "a"', 10),
    "misspelled field": (_join(NODE, pod("nodeSelectr: {disk: ssd}\n")),
                         'did you mean "nodeSelector"?', None),
    "bad type": (_join(NODE, pod("priority: high\n")), "expected an integer", None),
    "syntax": (_join(NODE, pod() + "  bad: [\n"), "YAML syntax error", 15),
    "plain yes where a string is needed": (_join(NODE, pod(meta="labels: {a: yes}")),
                                           "expected a string", None),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_same_located_errors(case, monkeypatch):
    text, reason, line = ERRORS[case]
    fast, strict = _load_both(text, monkeypatch)
    assert fast == strict
    assert fast[0] == "error" and reason in fast[1], fast
    file, document, *_, got_line = fast[2]
    assert file == "s.yaml" and document == 2
    if line is not None:
        assert got_line == line


def test_valid_dump_loads_alike(monkeypatch):
    text = _join(*BASE, *(pod(name=f"p{i}", meta="labels: {app: web, tier: '3'}")
                          for i in range(20)))
    fast, strict = _load_both(text, monkeypatch)
    assert fast == strict and fast[0] == "ok"
    assert fast_decode(text, MAX_NESTING_DEPTH) is not None


# --- the build's shortcuts give what the long way gives ---------------------------------------

@pytest.mark.parametrize("ident", [("Pod", "default", "p"), ("Node", "", "n1"),
                                   ("Pod", "ns", "é-ü" * 40), ("", "", "")])
def test_stable_uid_is_uuid5(ident):
    import uuid

    from scheduler_core.api.uid import _UID_NAMESPACE, stable_uid
    for salt in ("", "#2"):
        want = str(uuid.uuid5(_UID_NAMESPACE, "/".join(ident) + salt))
        assert stable_uid(*ident, salt) == want


def test_resource_list_cache_keeps_types_and_errors():
    from scheduler_core.loader.reader import object_reader
    from scheduler_core.loader.resources import resource_list

    r = object_reader("s.yaml", "Pod", "p")
    first = resource_list(r, {"cpu": 1, "memory": "1Gi"}, "x", container=True)
    again = resource_list(r, {"cpu": 1, "memory": "1Gi"}, "x", container=True)
    assert first == again and first is not again
    again["cpu"] = 0  # the caller's copy: the next caller is unaffected
    assert resource_list(r, {"cpu": 1, "memory": "1Gi"}, "x", container=True) == first
    with pytest.raises(ScenarioError) as info:  # True == 1, but a boolean is no quantity
        resource_list(r, {"cpu": True, "memory": "1Gi"}, "spec.x", container=True)
    assert info.value.field == "spec.x.cpu"
    with pytest.raises(ScenarioError):  # pods is a node resource, not a container's
        resource_list(r, {"cpu": 1, "memory": "1Gi", "pods": 1}, "x", container=True)
    assert resource_list(r, {"pods": 1}, "x", container=False) == {"pods": 1}


# --- random documents: whatever the fast path accepts, it reads as the strict loader does -----

_SCALARS = [
    "a", "app", "web-1", "10.0.0.1", "nginx:1.25.3", "100m", "128Mi", "3.10", "1", "0", "-5",
    "42", "1.5", ".5", "1.", "+3", "007", "0x1F", "1_000", "1e3", "1:30", "yes", "No", "on",
    "OFF", "true", "False", "null", "~", "", "2001-12-14", ".inf", "-.5", "<<", "=", "y",
    "it's", 'say "hi"', "a b", "a: b", "a #b", "#c", "- x", "[x]", "{x}", "é", "x\\ny",
]


_PLAIN_ALIKE = [s for s in _SCALARS if s not in {
    "007", "0x1F", "1_000", "1e3", "1:30", "yes", "No", "on", "OFF", "2001-12-14", ".inf",
    "-.5", "<<", "=", "a: b", "- x", "#c"}]


def _scalar(rng, flow: bool) -> str:
    s = rng.choice(rng.pool)
    style = rng.random()
    if style < 0.2:
        return "'" + s.replace("'", "''") + "'"
    if style < 0.4:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    plain_ok = s and not s.startswith(("#", "- ", "[", "{", "'", '"')) and ": " not in s \
        and " #" not in s and "\\" not in s and not (flow and any(c in s for c in ",[]{}"))
    return s if plain_ok else "'" + s.replace("'", "''") + "'"


def _flow(rng, depth: int) -> str:
    if depth > 2 or rng.random() < 0.5:
        return _scalar(rng, True)
    if rng.random() < 0.5:
        return "[" + ", ".join(_flow(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    keys = rng.sample(rng.flow_keys, rng.randint(0, 3))
    return "{" + ", ".join(f"{k}: {_flow(rng, depth + 1)}" for k in keys) + "}"


def _block(rng, indent: int, depth: int) -> str:
    pad = " " * indent
    out = []
    if rng.random() < 0.3 and depth:
        for _ in range(rng.randint(1, 3)):
            out.append(f"{pad}- {_flow(rng, 1)}\n")
        return "".join(out)
    for key in rng.sample(rng.keys, rng.randint(1, 4)):
        r = rng.random()
        if depth < 3 and r < 0.35:
            out.append(f"{pad}{key}:\n{_block(rng, indent + 2, depth + 1)}")
        elif r < 0.45:
            out.append(f"{pad}{key}: |\n{pad}  {rng.choice(rng.pool) or 'x'}\n")
        else:
            out.append(f"{pad}{key}: {_flow(rng, 0)}\n")
    return "".join(out)


@pytest.mark.parametrize("seed", range(40))
def test_random_documents_read_alike(seed):
    """Even seeds draw from every scalar (most texts take the strict loader), odd ones from
    those both parsers read alike (most take the fast path, which must then agree)."""
    import random

    rng = random.Random(seed)
    rng.pool = _SCALARS if seed % 2 == 0 else _PLAIN_ALIKE  # type: ignore[attr-defined]
    rng.keys = ["name", "spec", "x", "y", "z", "k.io/a"] + (["on", "7"] if seed % 2 == 0 else [])
    rng.flow_keys = ["a", "b", "c", "d", "k-1"] + (["1"] if seed % 2 == 0 else [])
    taken = sum(_same_or_none("\n---\n".join(_block(rng, 0, 0)
                                              for _ in range(rng.randint(1, 3))))
                for _ in range(25))
    if seed % 2:
        assert taken >= 10


def test_an_exception_from_outside_is_not_taken_for_a_refusal(monkeypatch):
    """A worker's time limit is raised into the loading thread (an Exception, not a parse error):
    the fast path must let it through, not swallow it and load again with the strict loader."""
    from scheduler_core.loader import yaml_fast

    class TimeLimit(Exception):
        pass

    def interrupted(*args, **kwargs):
        raise TimeLimit

    monkeypatch.setattr(yaml_fast.yaml_rs, "loads", interrupted)
    with pytest.raises(TimeLimit):
        fast_decode(NODE, MAX_NESTING_DEPTH)
