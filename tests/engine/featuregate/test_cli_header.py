"""The command line reads a scenario file's `# feature-gates:` header as the web's start form
does (one parser, scheduler_core.loader.scenario_header): the gang lesson's workers wait at Permit
on the command line too; `--feature-gates` is applied after the header; a header naming another
run setting is reported on stderr, not silently dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core.__main__ import main
from scheduler_core.loader.scenario_header import file_header, merge_gates, read_header

ROOT = Path(__file__).resolve().parents[3]
GANG = ROOT / "playground" / "gallery" / "gang-scheduling.yaml"
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '4', memory: 8Gi}}\n"


def _trace(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict], str]:
    assert main(["trace", *args]) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def test_gang_lesson_waits_at_permit_on_the_command_line(capsys) -> None:
    events, err = _trace(capsys, str(GANG))
    assert events[0]["featureGates"] == {"GangScheduling": True, "GenericWorkload": True}
    waiting = [e["pod"] for e in events if e["type"] == "permit_wait"]
    assert waiting == ["default/worker-1", "default/worker-2", "default/worker-3"]
    assert "feature gates from its `# feature-gates:` header: GenericWorkload=true,GangScheduling=true" in err


def test_gang_lesson_before_the_fourth_node_holds_every_worker(capsys) -> None:
    assert main(["simulate", str(GANG), "--max-time", "60"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [(p["name"], p["status"]) for p in result["pods"]] == [
        (f"worker-{i}", "Pending") for i in range(1, 5)]


def test_flag_overrides_the_header_gate_by_gate(capsys) -> None:
    events, err = _trace(capsys, str(GANG), "--feature-gates", "GangScheduling=false")
    assert events[0]["featureGates"] == {"GenericWorkload": True}
    assert not [e for e in events if e["type"] == "permit_wait"]
    assert "(then --feature-gates GangScheduling=false)" in err


def test_merge_gates() -> None:
    assert merge_gates("A=true,B=true", "B=false") == "A=true,B=false"
    assert merge_gates("", "B=false") == "B=false"
    assert merge_gates("A=true", "") == "A=true"


def test_header_gates_the_version_refuses_name_the_header(tmp_path, capsys) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("# feature-gates: NoSuchGate=true\n" + NODE)
    assert main(["simulate", str(f)]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == ('error: invalid argument "NoSuchGate=true" for "--feature-gates" flag (with the file\'s '
                   '"# feature-gates: NoSuchGate=true" header): unrecognized feature gate: NoSuchGate')


def test_a_header_setting_nothing_reads_is_reported(tmp_path, capsys) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("# title: x\n# version: v1.30\n# seed: 4\n" + NODE)
    assert main(["simulate", str(f)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {f}: header `# version:` is not read by a run; pass --kubernetes-version instead" in err
    assert f"warning: {f}: header `# seed:` is not read by a run; pass --seed instead" in err
    assert "title" not in err


@pytest.mark.parametrize("comment", [
    "# " + "9" * 5000,  # an integer Python cannot convert
    "# x: " + "[" * 5000,  # nesting libyaml's composer would recurse into
    "# a: &a [x]\n# b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n# c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "# just a sentence, not a mapping",
    "# a: 1\n# a: 2",
])
def test_ordinary_or_hostile_comments_are_no_header(tmp_path, capsys, comment: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(comment + "\n" + NODE)
    assert file_header(f).feature_gates == ""
    assert main(["simulate", str(f)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_the_web_gallery_reads_the_same_header() -> None:
    from playground.selectors.gallery import read_header as web_read_header

    text = GANG.read_text(encoding="utf-8")
    assert web_read_header(text) == read_header(text)
    assert read_header(text)["feature-gates"] == "GenericWorkload=true,GangScheduling=true"
