"""Every cluster action kind, by its `action` name: the one list the timeline loader, the
simulation, the web's preflight and its forms read.

Adding an action kind: a module in scheduler_core/actions/ with its `ActionSpec` (spec.py) as
`SPEC`, and its name in `_MODULES` below (docs/architecture.md, "A cluster action"). The order is
the one the loader's error lists the supported values in.
"""

from __future__ import annotations

import importlib

from scheduler_core.actions.spec import ActionSpec

__all__ = ["actions", "action_names", "register", "spec_of", "unregister", "UnknownAction"]

_MODULES = ("add_pod", "delete_pod", "add_node", "delete_node", "cordon", "uncordon", "add_taint",
            "remove_taint", "set_node_labels", "set_score_weight", "scale_deployment", "fail_bind",
            "set_node_condition", "run_descheduler", "drain_node")


class UnknownAction(ValueError):
    """An `action` no spec is registered for."""


_ACTIONS: dict[str, ActionSpec] = {}


def actions() -> dict[str, ActionSpec]:
    """Every registered spec by name. The modules are imported at the first call, not at this
    module's import: they use the loader's object parsers, and a kind is loaded when first
    asked for."""
    if not _ACTIONS:
        for module in _MODULES:
            spec = importlib.import_module(f"scheduler_core.actions.{module}").SPEC
            _ACTIONS[spec.name] = spec
    return _ACTIONS


def action_names() -> tuple[str, ...]:
    """The registered action names, in registry order."""
    return tuple(actions())


def spec_of(action: str) -> ActionSpec:
    """The spec of `action` (UnknownAction when none is registered)."""
    spec = actions().get(action)
    if spec is None:
        raise UnknownAction(f"unknown action {action!r}")
    return spec


def register(spec: ActionSpec) -> None:
    """Add (or replace) an action kind at run time: what a module listed in `_MODULES` does at
    import. Tests use it for a throwaway kind; the project's kinds are listed above."""
    actions()[spec.name] = spec


def unregister(name: str) -> None:
    """Remove a kind `register` added (a test's throwaway one)."""
    actions().pop(name, None)
