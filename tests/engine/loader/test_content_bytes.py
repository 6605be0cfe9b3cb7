"""memo.py's `content_bytes`, the key the spec memo (pods.py) finds a replica's parsed spec by:
equal keys only for equal contents, types and key order included, so a spec is never answered
from another's parse."""

import pytest
from helpers import NODE, load, pod

from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader import pods as pods_module
from scheduler_core.loader.memo import ParseMemo, content_bytes


def test_content_bytes_tells_types_and_orders_apart():
    values = [{"a": 1}, {"a": True}, {"a": 1.0}, {"a": "1"}, {"a": [1]}, {"b": 1},
              {"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": None}, {"a": ""}]
    keys = [content_bytes(v) for v in values]
    assert None not in keys and len(set(keys)) == len(values)
    # Equal contents, however their strings were made (interned or not), give equal keys.
    assert content_bytes({"a": "x" + str(1)}) == content_bytes({"a": "x1"})
    looped: list = []
    looped.append(looped)
    assert content_bytes(looped) is None


@pytest.fixture()
def _empty_memo(monkeypatch):
    monkeypatch.setattr(pods_module, "_SPECS", ParseMemo())


@pytest.mark.usefixtures("_empty_memo")
def test_a_spec_equal_but_for_a_value_type_is_parsed_on_its_own():
    # hostNetwork: true parsed and remembered; the same spec with the string "true" is refused.
    with pytest.raises(ScenarioError) as err:
        load(NODE, pod("hostNetwork: true\n", name="a"), pod("hostNetwork: 'true'\n", name="b"))
    assert err.value.document == 3 and err.value.field == "spec.hostNetwork"
