"""Names and hashes the workload controllers give the objects they create.

Upstream's forms, reproduced deterministically:

* ``pod-template-hash`` / ``controller-revision-hash``: the 32-bit FNV-1a hash of the pod
  template (upstream hashes its Go object dump; we hash a canonical JSON of the manifest, so the
  value differs but has the same form), plus the collision count when one is set, written in
  decimal and passed through ``SafeEncodeString`` (each character mapped onto the 27-letter
  alphabet without vowels and look-alike digits).
* generated names (``metadata.generateName``): the prefix, cut to 58 characters, plus five
  characters of that alphabet. Upstream draws them from a global random source; here they come
  from a generator seeded with the owner's identity, so a scenario loads to the same pods every
  time.
"""

from __future__ import annotations

import json
import random
import struct
import uuid
from typing import Any

# k8s.io/apimachinery/pkg/util/rand: no vowels (no words), no 0/1/3 (look like o/l/e).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
RANDOM_SUFFIX_LENGTH = 5
MAX_NAME_LENGTH = 63
MAX_GENERATED_PREFIX = MAX_NAME_LENGTH - RANDOM_SUFFIX_LENGTH

_UID_NAMESPACE = uuid.UUID("0b5c8f6e-2d0e-4a4b-9d0f-6c7a1e93b2d4")

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv32a(data: bytes) -> int:
    """32-bit FNV-1a, the hash upstream's controllers use for template hashes."""
    h = _FNV32_OFFSET
    for b in data:
        h ^= b
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: every character replaced by ALPHANUMS[ord(c) % 27], so a hash
    written in decimal becomes a label value with no vowels (no accidental words)."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


def compute_hash(template: dict[str, Any], collision_count: int | None = None) -> str:
    """controller.ComputeHash over a pod template given as a manifest mapping."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":"), default=str).encode()
    if collision_count is not None:
        data += struct.pack("<I", collision_count & 0xFFFFFFFF)
    return safe_encode(str(fnv32a(data)))


def object_uid(kind: str, obj: dict[str, Any]) -> str:
    """metadata.uid when the manifest has one (a cluster dump), else one derived from identity."""
    meta = obj.get("metadata") or {}
    uid = meta.get("uid")
    if isinstance(uid, str) and uid:
        return uid
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{meta.get('namespace') or 'default'}/"
                                          f"{meta.get('name')}"))


class NameGenerator:
    """generateName for one owner: prefix + 5 seeded random characters, never repeating a
    name already taken in the namespace (the apiserver would answer AlreadyExists and the
    controller retry with a new name)."""

    def __init__(self, seed: str, taken: set[str] | None = None) -> None:
        self._rng = random.Random(seed)
        self._taken = taken if taken is not None else set()

    def generate(self, prefix: str) -> str:
        base = prefix[:MAX_GENERATED_PREFIX]
        while True:
            name = base + "".join(self._rng.choice(ALPHANUMS) for _ in range(RANDOM_SUFFIX_LENGTH))
            if name not in self._taken:
                self._taken.add(name)
                return name


def pods_prefix(controller_name: str) -> str:
    """getPodsPrefix: `<controller>-`, the generateName of the controller's pods."""
    return f"{controller_name}-"
