"""A module that imports a package which is not installed (not the same as the module missing)."""

import scheduler_plugin_dependency_not_installed  # noqa: F401


def register(registry) -> None:  # noqa: ANN001
    pass
