"""Run a coroutine function to completion from sync test code, whatever the calling thread holds.

Once a test has used the session's Playwright browser, the main thread carries Playwright's event
loop, and asgiref's `async_to_sync` refuses to run there. A fresh thread has no loop, so the call
behaves the same whichever tests ran before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import async_to_sync

T = TypeVar("T")


def call_async(function: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run `function(*args, **kwargs)` on its own thread and event loop; return its result."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(async_to_sync(function), *args, **kwargs).result()
