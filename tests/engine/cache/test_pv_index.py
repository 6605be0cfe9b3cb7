"""The PVs filed by class (apiserver/store/pv_index.py) list what a scan and sort of every PV
lists, through creates, replacements that change a PV's class, removals, checkpoints and copies."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from scheduler_core.api.storage_types import PersistentVolume, volume_class
from scheduler_core.apiserver.store.pv_index import PVIndex
from scheduler_core.apiserver.store.storage_state import StorageState


def _pv(name: str, cls: str) -> PersistentVolume:
    return PersistentVolume(name=name, storage_class_name=cls)


def _scan(pvs: dict[str, PersistentVolume], cls: str) -> list[PersistentVolume]:
    return sorted((pv for pv in pvs.values() if volume_class(pv) == cls), key=lambda pv: pv.name)


def test_a_class_lists_its_pvs_in_name_order_through_every_kind_of_write():
    state = StorageState(pvs={"c": _pv("c", "fast"), "a": _pv("a", "fast"), "b": _pv("b", "slow")})
    pvs = state.pvs
    assert isinstance(pvs, PVIndex)
    pvs["aa"] = _pv("aa", "fast")
    pvs["b"] = dataclasses.replace(pvs["b"], storage_class_name="fast")  # moves class
    pvs["c"] = dataclasses.replace(pvs["c"], capacity=5)  # replaced in place of its class
    pvs.pop("a")
    del pvs["aa"]
    pvs.setdefault("d", _pv("d", "slow"))
    pvs.update({"e": _pv("e", "fast")})
    for cls in ("fast", "slow", "none"):
        assert state.pvs_of_class(cls) == _scan(pvs, cls)
    assert [pv.name for pv in state.pvs_of_class("fast")] == ["b", "c", "e"]
    assert state.pvs_of_class("fast")[1].capacity == 5
    for copied in (pickle.loads(pickle.dumps(pvs)), copy.deepcopy(pvs)):
        assert isinstance(copied, PVIndex) and copied == pvs
        assert copied.of_class("fast") == pvs.of_class("fast")
    pvs.clear()
    assert state.pvs_of_class("fast") == []
