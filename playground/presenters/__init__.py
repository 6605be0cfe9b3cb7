"""Presenters: turn stored data into the context one template partial draws (read-only)."""
