"""Every file of the malformed corpus is refused by the loader and the CLI, quickly, with an
error that locates the problem (file plus line, document or field), never a traceback; and the
inputs too big to commit (deep, huge, bombs) are generated here and refused the same way."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from scheduler_core.__main__ import main
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import CLI_LIMITS, load_scenario_file, load_scenario_text

# Refused, not hung: a guard against pathological input costs, not a speed target (the
# 2-second figure for every input is measured by bench/malformed.py).
HANG_GUARD_SECONDS = 30.0

CORPUS = Path(__file__).parent / "malformed"
FILES = sorted(CORPUS.glob("*.yaml"))
ROOT = Path(__file__).resolve().parents[3]
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"


def test_corpus_is_large_enough():
    assert len(FILES) >= 100


def _assert_located(e: ScenarioError, source: str) -> None:
    assert e.file == source
    assert e.line is not None or e.document is not None or e.field is not None, str(e)
    assert str(e).startswith(source + ": ")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_loader_refuses(path):
    start = time.perf_counter()
    with pytest.raises(ScenarioError) as info:
        load_scenario_file(path, limits=CLI_LIMITS)
    assert time.perf_counter() - start < HANG_GUARD_SECONDS
    _assert_located(info.value, str(path))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_cli_refuses(path, capsys):
    start = time.perf_counter()
    rc = main(["simulate", str(path)])
    assert time.perf_counter() - start < HANG_GUARD_SECONDS
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.startswith(f"error: {path}: ") and "Traceback" not in err
    assert err.count("\n") == 1  # one line, no stack


GENERATED = {
    "flow-2000": NODE + "x: " + "[" * 2000 + "]" * 2000 + "\n",
    "flow-map-2000": NODE + "x: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n",
    "block-2000": NODE + "x:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(2000)),
    "flow-200000-unclosed": "x: " + "[" * 200_000 + "\n",
    "flow-100000": "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "dash-chain-50000": "- " * 50_000 + "x\n",
    "bomb-12-levels": "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 12) if i else 'x'}]\n" for i in range(12)),
    "many-docs-scalars": "---\nx\n" * 200_000,
}


@pytest.mark.parametrize("name", list(GENERATED))
def test_generated_inputs_refused_quickly(name):
    start = time.perf_counter()
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(GENERATED[name], source="gen.yaml", limits=CLI_LIMITS)
    assert time.perf_counter() - start < HANG_GUARD_SECONDS
    _assert_located(info.value, "gen.yaml")


@pytest.mark.parametrize("name", ["flow-100000", "flow-200000-unclosed", "dash-chain-50000"])
def test_cli_process_survives_deep_nesting(name, tmp_path):
    """libyaml's composer recurses in C: without the pre-check these inputs crash the process
    (SIGSEGV), so only a real process proves the guard."""
    f = tmp_path / f"{name}.yaml"
    f.write_text(GENERATED[name])
    proc = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(f)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {f}: line 1: document 1: YAML nesting is deeper")


def test_file_over_the_byte_limit_is_refused_before_reading(tmp_path, capsys):
    f = tmp_path / "huge.yaml"
    with f.open("wb") as fh:  # sparse: nothing is written but the size
        fh.seek(CLI_LIMITS.max_bytes)
        fh.write(b"\n")
    start = time.perf_counter()
    assert main(["simulate", str(f)]) == 2
    assert time.perf_counter() - start < HANG_GUARD_SECONDS
    err = capsys.readouterr().err
    assert "input is too large" in err and "raise it with --max-bytes" in err


def test_text_over_the_byte_limit_is_refused_quickly():
    text = "# padding\n" * (600 * 1024)  # 6 MiB, over the library default of 5 MiB
    start = time.perf_counter()
    with pytest.raises(ScenarioError, match="too large"):
        load_scenario_text(text)
    assert time.perf_counter() - start < HANG_GUARD_SECONDS


def test_depth_within_the_limit_is_accepted():
    # 60 levels of annotation-free nesting inside an ignored field: deep, but a manifest.
    text = NODE + "spec:\n  configSource:\n" + "".join(
        "  " * (i + 2) + f"k{i}:\n" for i in range(60)) + "  " * 62 + "v: 1\n"
    sc = load_scenario_text(text)
    assert [w.field for w in sc.warnings] == ["spec.configSource"]
