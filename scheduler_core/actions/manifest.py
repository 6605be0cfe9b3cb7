"""The object an addPod or addNode action carries, checked as strictly as a top-level one."""

from __future__ import annotations

from typing import Any

from scheduler_core.actions.spec import ParseContext
from scheduler_core.api.errors import ScenarioError
from scheduler_core.loader.reader import FieldReader, Location
from scheduler_core.loader.strict import check_object, object_identity


def parse_manifest(ctx: ParseContext, m: dict[str, Any], key: str) -> Any:
    """The Pod (`key` "pod") or Node ("node") of the action's `key` field: strict field check,
    then the loader's own parser, errors located under the action's field."""
    from scheduler_core.loader.nodes import parse_node
    from scheduler_core.loader.pods import parse_pod

    r, p = ctx.r, ctx.path
    expected = "Pod" if key == "pod" else "Node"
    manifest = r.mapping(m.get(key), f"{p}.{key}", required=True)
    sub = FieldReader(Location(r.doc.file, r.doc.index, expected))
    prefix = f"{p}.{key}"
    check_object(manifest, expected, Location(r.doc.file, r.doc.index, expected,
                                              object_identity(manifest, expected)), ctx.notes, prefix)
    try:
        if key == "pod":
            obj = parse_pod(sub, manifest, ctx.base_index + ctx.position, ctx.admission,
                            uid_salt=f"@timeline[{ctx.position}]")
        else:
            obj = parse_node(sub, manifest, ctx.base_index + ctx.position, uid_salt=f"@timeline[{ctx.position}]")
    except ScenarioError as exc:
        exc.field = f"{prefix}.{exc.field}" if exc.field else prefix
        exc.args = (str(exc),)
        raise
    kind = manifest.get("kind")
    if kind is not None and kind != expected:
        raise r.err(f"{p}.{key}.kind", f'Invalid value: "{kind}": expected {expected}')
    return obj
