"""The `APIServer` document: what a scenario changes of kube-apiserver's defaults.

    apiVersion: playground.kube-scheduler.dev/v1
    kind: APIServer
    disableAdmissionPlugins: [DefaultTolerationSeconds]

like `kube-apiserver --disable-admission-plugins=...`. Only admission plugins that change
what the scheduler sees and that a cluster may run without can be listed; Priority cannot
(every priority in a scenario is resolved by it, as in every real cluster).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.api.default_toleration_seconds import PLUGIN_NAME as DEFAULT_TOLERATION_SECONDS
from scheduler_core.loader.reader import FieldReader

__all__ = ["DISABLEABLE", "read_api_server"]

DISABLEABLE = (DEFAULT_TOLERATION_SECONDS,)


def read_api_server(docs: list[tuple[FieldReader, dict[str, Any]]]) -> list[str]:
    """The admission plugins the scenario turns off (at most one APIServer document)."""
    if not docs:
        return []
    if len(docs) > 1:
        raise docs[1][0].err(None, "only one APIServer document is allowed")
    r, obj = docs[0]
    names = r.string_list(obj.get("disableAdmissionPlugins"), "disableAdmissionPlugins")
    for i, name in enumerate(names):
        if name not in DISABLEABLE:
            raise r.err(f"disableAdmissionPlugins[{i}]",
                        f'Unsupported value: "{name}": supported values: "{", ".join(DISABLEABLE)}"')
    return list(dict.fromkeys(names))
