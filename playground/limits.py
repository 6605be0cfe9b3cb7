"""The web's input limits: the engine loader's `Limits`, built from Django settings.

Every load the web makes (validating a change, an upload, an import, starting a run) passes
these, so one setting governs them all and a refusal names the setting that raises it
(PLAYGROUND_MAX_NODES, PLAYGROUND_MAX_PODS, PLAYGROUND_MAX_BYTES, PLAYGROUND_MAX_CLAIMS).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import QueryDict

from scheduler_core.loader.limits import DEFAULT_LIMITS, SETTINGS_HINTS, Limits

__all__ = ["web_limits", "max_yaml_bytes", "too_large", "request_too_large"]

MIB = 1024 * 1024


def web_limits() -> Limits:
    """The limits in force now (read on each call, so tests' settings overrides apply)."""
    return Limits(
        max_nodes=getattr(settings, "PLAYGROUND_MAX_NODES", DEFAULT_LIMITS.max_nodes),
        max_pods=getattr(settings, "PLAYGROUND_MAX_PODS", DEFAULT_LIMITS.max_pods),
        max_bytes=getattr(settings, "PLAYGROUND_MAX_BYTES", DEFAULT_LIMITS.max_bytes),
        max_claims=getattr(settings, "PLAYGROUND_MAX_CLAIMS", DEFAULT_LIMITS.max_claims),
        hints=SETTINGS_HINTS,
    )


def max_yaml_bytes() -> int:
    """The largest scenario YAML (UTF-8 bytes) the web accepts."""
    return web_limits().max_bytes


def too_large(what: str) -> str:
    """`what` (e.g. "big.yaml: the file is too large (6,000,000 bytes)") with the limit and the
    setting that raises it, worded like the loader's own refusal."""
    return web_limits().refusal("max_bytes", what)


def request_too_large(request: Any) -> bool:
    """Whether the request's body (its Content-Length) is above what a scenario may be plus
    1 MiB for the form's other fields: checked before the body is parsed, so an oversized
    upload is refused before it is read into a form, decompressed or loaded. When it is, the
    request's form is set empty (it is never parsed)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    if length <= max_yaml_bytes() + MIB:
        return False
    request.POST = QueryDict()  # never parsed: what reads the form later finds it empty
    return True
