"""A module whose own code fails while it is imported."""

raise RuntimeError("the plugin's configuration file is missing")
