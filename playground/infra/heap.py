"""Giving the C allocator's free pages back to the system before a big, short-lived allocation.

A worker that loads a big scenario frees hundreds of MB of medium-sized blocks on the way
(decoded documents, intermediate lists and strings): glibc keeps those pages for later blocks of
the same kind, counted in the process's resident memory. The allocations that follow at the peak
of a preparation (the checkpoint's pickle memo and its buffer, the frame's JSON, each one block of
tens or hundreds of MB) are served by fresh mappings instead, never from those free pages, so
they stack on top of them. `give_back` returns them first (glibc's `malloc_trim`: ~60-80 MB at
5,000 nodes x 150,000 pods, milliseconds). Elsewhere (another C library) it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def give_back() -> bool:
    """Return the free pages of the C heap to the system; False where the C library cannot."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
