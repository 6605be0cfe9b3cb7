"""Loading out-of-tree plugins: the modules `--plugins` (command line) or PLAYGROUND_PLUGINS
(the web app) name, each registering its plugins into the process's registry.

Why a loader of its own: a module is code the operator chose to install, so it is imported by
name (never from a scenario); a module that cannot be imported, has no `register(registry)`,
or tries to take a name already registered is refused with one line that names it, and nothing
of a refused batch is registered (all modules are checked before any plugin becomes known).
The contract a module follows is documented in docs/plugins.md; what it may import is
`scheduler_core.framework.api`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from scheduler_core.framework.plugins.registry import Registry, RegistryError, add_out_of_tree

ENTRY_FUNCTION = "register"


class PluginModuleError(ValueError):
    """A plugin module that cannot be used; the message names the module and why."""


def parse_module_list(spec: str | Iterable[str]) -> list[str]:
    """`a.b,c` (or a list of such) -> ["a.b", "c"]: blanks dropped, each a dotted Python name."""
    parts = spec.split(",") if isinstance(spec, str) else [p for s in spec for p in s.split(",")]
    names: list[str] = []
    for raw in parts:
        name = raw.strip()
        if not name:
            continue
        if not all(part.isidentifier() for part in name.split(".")):
            raise PluginModuleError(f"{name!r} is not a Python module name (dotted identifiers, e.g. my_plugins.capacity)")
        if name not in names:
            names.append(name)
    return names


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        missing = e.name or ""
        if missing and (name == missing or name.startswith(missing + ".")):
            raise PluginModuleError(f"module {name!r} not found (install it, or put its directory on PYTHONPATH)") from None
        raise PluginModuleError(f"importing module {name!r} failed: {type(e).__name__}: {e}") from None
    except Exception as e:  # the module's own code raised while importing
        raise PluginModuleError(f"importing module {name!r} failed: {type(e).__name__}: {e}") from None


def load_plugin_modules(spec: str | Iterable[str]) -> list[str]:
    """Import each named module and call its `register(registry)`; returns the plugin names
    registered. PluginModuleError (one line) for the first module that cannot be used, and then
    none of the modules' plugins are registered. Loading the same modules again is a no-op."""
    staged: dict[str, Callable[..., Any]] = {}
    registry = Registry(staged)
    for name in parse_module_list(spec):
        module = _import(name)
        entry = getattr(module, ENTRY_FUNCTION, None)
        if not callable(entry):
            raise PluginModuleError(f"module {name!r} has no {ENTRY_FUNCTION}(registry) function: "
                                    f"a plugin module registers its plugins there (see docs/plugins.md)")
        try:
            entry(registry)
        except RegistryError as e:
            raise PluginModuleError(f"module {name!r}: {e}") from None
        except Exception as e:
            raise PluginModuleError(f"module {name!r}: {ENTRY_FUNCTION}() failed: {type(e).__name__}: {e}") from None
    add_out_of_tree(staged)
    return list(staged)
