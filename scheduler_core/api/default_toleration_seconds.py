"""kube-apiserver's DefaultTolerationSeconds admission plugin (on by default).

Every pod created without a NoExecute toleration for `node.kubernetes.io/not-ready` (or for
`node.kubernetes.io/unreachable`) gets one, operator Exists, for 300 seconds. So when a node
goes not-ready or unreachable, the taint manager waits five minutes before evicting its pods
instead of evicting them at once. A toleration with an empty key (every key) or an empty effect
(every effect) already covers the taint, and then nothing is added.

A scenario may turn the plugin off (`APIServer` document, `disableAdmissionPlugins`), as
`kube-apiserver --disable-admission-plugins=DefaultTolerationSeconds` would.
"""

from __future__ import annotations

from collections.abc import Sequence

from scheduler_core.api.types import Toleration

__all__ = ["PLUGIN_NAME", "TAINT_NODE_NOT_READY", "TAINT_NODE_UNREACHABLE", "DEFAULT_SECONDS",
           "with_default_tolerations"]

PLUGIN_NAME = "DefaultTolerationSeconds"
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300  # the plugin's --default-not-ready/unreachable-toleration-seconds
_NO_EXECUTE = "NoExecute"


def with_default_tolerations(tolerations: Sequence[Toleration], not_ready_seconds: int = DEFAULT_SECONDS,
                             unreachable_seconds: int = DEFAULT_SECONDS, added_by: str = PLUGIN_NAME,
                             ) -> list[Toleration]:
    """The tolerations after admission: the given ones, then the missing defaults (marked)."""
    has_not_ready = has_unreachable = False
    for tol in tolerations:
        if tol.effect in ("", _NO_EXECUTE):
            has_not_ready = has_not_ready or tol.key in ("", TAINT_NODE_NOT_READY)
            has_unreachable = has_unreachable or tol.key in ("", TAINT_NODE_UNREACHABLE)
    out = list(tolerations)
    if not has_not_ready:
        out.append(Toleration(key=TAINT_NODE_NOT_READY, operator="Exists", effect=_NO_EXECUTE,
                              toleration_seconds=not_ready_seconds, added_by=added_by))
    if not has_unreachable:
        out.append(Toleration(key=TAINT_NODE_UNREACHABLE, operator="Exists", effect=_NO_EXECUTE,
                              toleration_seconds=unreachable_seconds, added_by=added_by))
    return out
