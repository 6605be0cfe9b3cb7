"""`playground.block_yaml` writes exactly PyYAML's text: on every YAML file of the repository,
the envelope's shape, edge cases each side of its rules, and random documents."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.generate_envelope import render
from playground.block_yaml import NotPlain, PlainEmitter, dump_all
from playground.manifests import _Dumper, build_yaml, split_documents

ROOT = Path(__file__).resolve().parents[2]
OPTIONS: dict[str, Any] = {"Dumper": _Dumper, "sort_keys": False, "default_flow_style": False,
                           "allow_unicode": True, "width": 100}


def pyyaml(documents: list[Any]) -> str:
    return yaml.dump_all(documents, **OPTIONS)


def repository_manifests() -> list[tuple[str, list[dict[str, Any]]]]:
    found = []
    for path in sorted([*ROOT.glob("playground/gallery/**/*.yaml"), *ROOT.glob("examples/**/*.yaml"),
                        *ROOT.glob("tests/fixtures/**/*.yaml")]):
        try:
            found.append((str(path.relative_to(ROOT)), split_documents(path.read_text())))
        except Exception:  # not a scenario (a policy fragment, a broken fixture): nothing to compare
            continue
    return found


def test_every_repository_scenario_is_written_as_pyyaml_writes_it() -> None:
    cases = repository_manifests()
    assert len(cases) > 30
    for name, manifests in cases:
        assert build_yaml(manifests) == pyyaml(manifests), name


def test_the_envelope_is_pyyamls_text_and_written_directly() -> None:
    manifests = split_documents(render(60, 900))
    emitter = PlainEmitter()
    direct = 0
    for manifest in manifests:
        try:
            emitter.dump_document(manifest)
            direct += 1
        except NotPlain:
            pass
    assert direct == len(manifests)  # a dump's documents need no fallback
    assert dump_all(manifests, dumper=_Dumper) == pyyaml(manifests)


EDGE_STRINGS = [
    "", " ", "a", "a b", "a  b", " a", "a ", "a:", "a:b", "a: b", "a #b", "a#b", "#a", "-a", "- a", "-", "?a", "? a",
    ":a", "a,b", "[a]", "{a}", "&a", "*a", "!a", "|a", ">a", "'a", '"a', "%a", "@a", "`a", "---", "---a", "...",
    "...a", ".a", "./a", "/a", "_a", "true", "True", "TRUE", "yes", "no", "on", "off", "y", "n", "null", "Null", "~",
    "1", "01", "0777", "0o17", "0x1F", "1_000", "1:30", "1e3", "1.0", "-1", "+1", ".5", "-.5", ".inf", "-.inf",
    ".nan", ".NaN", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "<<", "=", "a=b", "100m", "128Mi", "1Gi",
    "registry.k8s.io/pause:3.10", "kubernetes.io/hostname", "nvidia.com/gpu", "é", "a\tb", "a\nb", "a\n", "\n",
    "a\u2028b", "x" * 99, "x" * 130, "word " * 30, ("word " * 19) + "word", "a (b)", "(a)", "a ()", "a b:", "a b:c",
    "a=", "a@b", "a+b", "+a", "=a", "@a b", "1 2", "0 x", "a:b:c", "a::b", "a.", "a-", "a/",
]


@pytest.mark.parametrize("text", EDGE_STRINGS)
def test_edge_strings_as_values_keys_and_items(text: str) -> None:
    for document in ({"k": text}, {text: "v"} if text else {"k": 1}, {"k": [text, {"k": text}]},
                     {"kk": {"metadata": {"labels": {"a": text}}}}, {"k": [[text]]}):
        assert dump_all([document, document], dumper=_Dumper) == pyyaml([document, document]), repr(document)


def test_shapes_and_types() -> None:
    shared = {"a": 1}
    documents = [{}, {"a": {}}, {"a": []}, {"a": [{}]}, {"a": [[]]}, {"a": [[1, [2, {"b": None}]], {"c": True}]},
                 {"a": False, "b": 0, "c": -5, "d": 10**20}, {"f": 1.5}, {"f": 1e17}, {"f": float("inf")},
                 {"t": (1, 2)}, {1: "int key"}, {None: "null key"}, {"x" * 127: 1}, {"x" * 128: 1},
                 {"s": shared, "t": shared}, {"l": [shared, shared]}, {"k": "a\n\n"}, []]
    for first in range(len(documents)):
        stream = documents[first:] + documents[:first]
        assert dump_all(stream, dumper=_Dumper) == pyyaml(stream)
    assert dump_all([], dumper=_Dumper) == pyyaml([])
    assert dump_all([{}], dumper=_Dumper) == pyyaml([{}])


def _random_value(rng: random.Random, depth: int, words: list[str]) -> Any:
    roll = rng.random()
    if depth < 4 and roll < 0.25:
        return {rng.choice(words): _random_value(rng, depth + 1, words) for _ in range(rng.randint(0, 4))}
    if depth < 4 and roll < 0.4:
        return [_random_value(rng, depth + 1, words) for _ in range(rng.randint(0, 3))]
    if roll < 0.5:
        return rng.choice([True, False, None, rng.randint(-10**6, 10**6)])
    if roll < 0.52:
        return rng.random() * 100
    return rng.choice(words)


@pytest.mark.parametrize("alphabet", ["ab Z09:_./-=#@'\"!?,[]{}|>%&*()~+\n\té", "ab Z09:_./-=+@()", "a 1.:-"])
def test_random_documents(alphabet: str) -> None:
    rng = random.Random(27)
    words = [*EDGE_STRINGS]
    for _ in range(600):
        words.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, rng.choice([12, 40, 110])))))
    direct = 0
    emitter = PlainEmitter()
    for _ in range(1500):
        stream = [_random_value(rng, 0, words) if rng.random() < 0.1 else
                  {rng.choice(words): _random_value(rng, 1, words) for _ in range(rng.randint(0, 5))}
                  for _ in range(rng.randint(1, 3))]
        assert dump_all(stream, dumper=_Dumper) == pyyaml(stream), stream
        for document in stream:
            try:
                emitter.dump_document(document)
                direct += 1
            except NotPlain:
                pass
    assert direct > 100  # both ways are exercised
