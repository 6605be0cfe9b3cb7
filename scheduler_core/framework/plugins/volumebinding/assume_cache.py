"""VolumeBinding's assume caches (upstream assume_cache.go): the API's PVs and PVCs, overlaid
with the versions this scheduler assumed at Reserve (a PV's claimRef, a PVC's selected-node
annotation) until the API reports a newer version or the assumption is reverted.

The API objects are read through from the cluster's storage state, so the cache never holds a
copy of what did not change; an assumed object is dropped as soon as the API's version is newer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AssumeCache", "AssumeError"]


class AssumeError(Exception):
    """An object to assume is unknown or older than the API's."""


class AssumeCache:
    __slots__ = ("_owner", "_attr", "_assumed", "_what")

    def __init__(self, owner: Any, attr: str, what: str) -> None:
        """`owner.store` is the cluster's StorageState; `attr` its dict of these objects."""
        self._owner = owner
        self._attr = attr
        self._assumed: dict[str, Any] = {}
        self._what = what

    def _api(self, key: str) -> Any:
        return getattr(self._owner.store, self._attr).get(key)

    def get_api_obj(self, key: str) -> Any:
        return self._api(key)

    def get(self, key: str) -> Any:
        """The latest version: the assumed one unless the API's is newer."""
        api = self._api(key)
        if not self._assumed:
            return api
        a = self._assumed.get(key)
        if a is None:
            return api
        if api is None or api.resource_version > a.resource_version:
            del self._assumed[key]
            return api
        return a

    def latest(self, obj: Any, key: str) -> Any:
        """`obj` (an API object) or the assumed version that replaces it."""
        if not self._assumed or key not in self._assumed:
            return obj
        return self.get(key)

    def assume(self, obj: Any, key: str) -> None:
        cur = self._api(key)
        if cur is None:
            raise AssumeError(f"{self._what} {key!r} not found")
        if obj.resource_version < cur.resource_version:
            raise AssumeError(f"{self._what} {key!r} is out of sync (stored: {cur.resource_version}, "
                              f"assume: {obj.resource_version})")
        self._assumed[key] = obj

    def restore(self, key: str) -> None:
        self._assumed.pop(key, None)
