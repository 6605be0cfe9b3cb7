"""Scenario files compressed with gzip: accepted by both upload forms, and decompressed under the
byte limit (PLAYGROUND_MAX_BYTES): a "zip bomb" is refused at once, naming the file and the
setting, and changes nothing."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.models import Scenario
from playground.selectors.scenarios import scenario_yaml
from tests.web.views.test_scenarios_views import GOOD, NODE, create, post

pytestmark = [pytest.mark.django_db]

SETTING = "(raise it with the PLAYGROUND_MAX_BYTES setting)"
THREE = GOOD + "---\n" + NODE.format(name="n3")


def _gz(text: str | bytes) -> bytes:
    return gzip.compress(text.encode() if isinstance(text, str) else text, mtime=0)


def _bomb(decompressed: int, *, forged_trailer: bool = False) -> bytes:
    """`decompressed` zero bytes in one gzip member, written a MiB at a time; with
    `forged_trailer` its stated size (ISIZE) is replaced by a small one."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    data = b"".join(deflate.compress(zeros) for _ in range(decompressed >> 20)) + deflate.flush()
    return data[:-4] + (100).to_bytes(4, "little") if forged_trailer else data


def _new(client: Client, name: str, payload: bytes) -> tuple[int, str]:
    response = client.post("/scenarios/", {"name": "Zipped", "description": "", "seed": "0",
                                           "file": SimpleUploadedFile(name, payload)})
    return response.status_code, unescape(response.content.decode())


def test_a_gzip_upload_makes_the_same_scenario_as_the_plain_file(client: Client) -> None:
    plain = create(client, yaml_text=THREE)
    status, _ = _new(client, "cluster.yaml.gz", _gz(THREE))
    assert status == 302
    zipped = Scenario.objects.exclude(pk=plain.pk).get()
    assert scenario_yaml(scenario=zipped) == scenario_yaml(scenario=plain)
    # recognised by its magic bytes, whatever the name; several members (as `cat a.gz b.gz`) too
    other = create(client, yaml_text=GOOD)
    html = post(client, other, "import_yaml", **{"import-file": SimpleUploadedFile(
        "dump.yaml", _gz(GOOD + "---\n") + _gz(NODE.format(name="n3")))})
    assert "Imported dump.yaml" in html
    assert scenario_yaml(scenario=other) == scenario_yaml(scenario=plain)


@pytest.mark.parametrize("forged", [False, True], ids=["honest-trailer", "forged-trailer"])
def test_a_zip_bomb_is_refused_at_once_and_changes_nothing(client: Client, settings, forged: bool) -> None:
    settings.PLAYGROUND_MAX_BYTES = limit = 8 << 20
    bomb = _bomb(64 << 20, forged_trailer=forged)  # 64 MiB of zeros in ~64 KB
    assert len(bomb) < 100_000
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    tracemalloc.start()
    started = time.process_time()
    try:
        html = unescape(post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("bomb.yaml.gz", bomb)}))
        cpu = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if forged:  # the trailer lies: decompression stops just past the limit
        assert f"bomb.yaml.gz: the file decompresses to more than {limit:,} bytes (stopped after" in html
        assert peak < 3 * limit, f"{peak:,} bytes"
    else:  # the trailer says 64 MiB: nothing is decompressed
        assert f"bomb.yaml.gz: the file decompresses to {64 << 20:,} bytes (its gzip trailer says so)" in html
        assert peak < limit, f"{peak:,} bytes"
    assert f"the limit is {limit:,} bytes {SETTING}" in html
    assert cpu < 1.0, f"{cpu:.2f} s CPU"
    assert scenario_yaml(scenario=scenario) == before
    status, html = _new(client, "bomb.yaml.gz", bomb)  # the new-scenario form, the same
    assert status == 400 and "bomb.yaml.gz: the file decompresses to" in html and SETTING in html
    assert Scenario.objects.count() == 1


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (_gz(GOOD)[:-12], "broken.gz: the gzip file is truncated (it ends inside its compressed data)."),
        (b"\x1f\x8b" + b"\x00" * 40, "broken.gz: the file is not valid gzip ("),
        (_gz(b"\xff\xfe not utf-8"), "broken.gz: the decompressed file is not UTF-8 text (invalid start byte at byte 0)."),
        (_gz("kind: Node\n  - broken: ["), "broken.gz: line 2: document 1: YAML syntax error"),
    ],
    ids=["truncated", "corrupt", "not-utf8", "bad-yaml-inside"],
)
def test_broken_gzip_uploads_are_explained_and_change_nothing(client: Client, payload: bytes, expected: str) -> None:
    scenario = create(client, yaml_text=GOOD)
    before = scenario_yaml(scenario=scenario)
    html = unescape(post(client, scenario, "import_yaml", **{"import-file": SimpleUploadedFile("broken.gz", payload)}))
    assert expected in html, html[:3000]
    assert scenario_yaml(scenario=scenario) == before


def test_an_oversized_body_is_refused_by_its_length_before_it_is_parsed(client: Client, settings) -> None:
    settings.PLAYGROUND_MAX_BYTES = 1 << 20
    scenario = create(client, yaml_text=GOOD)
    big = SimpleUploadedFile("big.yaml", b"# " + b"x" * (3 << 20))  # a file part: not Django's own limit
    html = unescape(post(client, scenario, "import_yaml", **{"import-file": big}))
    assert f"The request is too large; the limit is {1 << 20:,} bytes {SETTING}" in html
    big.seek(0)
    status, html = _new(client, "big.yaml", big.read())
    assert status == 400 and f"The request is too large; the limit is {1 << 20:,} bytes {SETTING}" in html
    assert Scenario.objects.count() == 1


def test_the_default_limits_admit_the_kubernetes_envelope(settings) -> None:
    from config.settings import PLAYGROUND_MAX_BYTES, PLAYGROUND_MAX_NODES, PLAYGROUND_MAX_PODS

    # 5,000 nodes x 150,000 pods: a dump of that size (bench/generate_envelope.py) is 69.5 MB
    assert (PLAYGROUND_MAX_NODES, PLAYGROUND_MAX_PODS) == (5_000, 150_000)
    assert PLAYGROUND_MAX_BYTES >= 80_000_000
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE > PLAYGROUND_MAX_BYTES
