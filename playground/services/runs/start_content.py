"""What a run's start is a function of: its content key.

A start depends only on the scenario's YAML text, the seed, the Kubernetes version, the feature
gates and the limits in force, so a start computed for one scenario serves every scenario with the
same content (`prepare`), and the engine a worker kept for it is handed to a run only when the
run's content gives the same key (`prepared_engine`). Its own module, because both of those read it
and `prepare` keeps engines through `prepared_engine`.
"""

from __future__ import annotations

import hashlib


def content_key(text: str, seed: int, kubernetes_version: str, feature_gates: str = "") -> str:
    """The hash of everything a run's start depends on (the limits in force included: a start
    they would refuse is never served from a start computed under others)."""
    from playground.limits import web_limits

    limits = web_limits()
    digest = hashlib.sha256(text.encode())
    digest.update(repr((seed, kubernetes_version, feature_gates, limits.max_nodes, limits.max_pods,
                        limits.max_bytes, limits.max_claims)).encode())
    return digest.hexdigest()
