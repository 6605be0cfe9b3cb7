"""A child process that ends when the process that started it ends, however that one ends.

`./dev run`'s launcher starts Redis, the Celery workers, the web processes and the sample
extender each in a session of its own (so a Ctrl-C in the terminal reaches only the launcher,
which then stops them in order). A launcher that is killed outright (SIGKILL, the OOM killer, a
closed terminal's crash) cannot stop anything: its children lived on as orphans, still serving
the port, and the next `./dev run` found the ports taken.

On Linux the kernel can send a child a signal when its parent dies: `prctl(PR_SET_PDEATHSIG)`.
It is set in the child between fork and exec (`Popen(preexec_fn=...)`) and survives the exec.
Two subtleties:

- "Parent" means the *thread* that forked the child: a child started from a short-lived
  thread would be killed when that thread ends. The launcher and the web-process supervisor
  start (and restart) their children from their main thread only.
- A parent that died before the child called prctl would never send it: the child compares
  its parent with the pid the parent had when it forked, and exits when they differ.

Elsewhere (not Linux) nothing is set: there the launcher's own Ctrl-C/SIGTERM handling is all.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    return libc.prctl  # type: ignore[no-any-return]


_PRCTL = _prctl()  # loaded in the parent: the child between fork and exec only calls it


def supported() -> bool:
    """Whether children can be tied to their parent's life here (Linux)."""
    return _PRCTL is not None


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` for `subprocess.Popen`: the child gets `sig` when the calling thread (the
    parent) ends. Call it in the thread that starts the child, just before starting it. None
    where the kernel cannot do it (Popen then starts the child as usual)."""
    prctl = _PRCTL
    if prctl is None:
        return None
    parent = os.getpid()

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above: nobody will signal
            os._exit(1)

    return in_child
