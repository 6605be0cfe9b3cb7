"""What `./dev run` tells a newcomer about the warnings its servers print while starting.

Each warning comes from a third-party server and is harmless for a local playground; the note
says why, so nobody has to judge it alone."""

from __future__ import annotations

import os

NOTES = [
    (
        "Memory overcommit must be enabled",
        "Redis asks for vm.overcommit_memory=1 because its background saves fork; the playground's "
        "private Redis saves nothing to disk, so the warning does not apply.",
    ),
]
ROOT_NOTE = (
    "running with superuser privileges",
    "Celery warns when its worker runs as root (as in a container). It only runs this project's "
    "tasks, accepts JSON messages only (Celery's default) and listens on a private loopback Redis; run ./dev as an "
    "ordinary user to silence it.",
)


def first_contact_notes() -> str:
    """The notes for the warnings this start may have printed, one paragraph each."""
    notes = list(NOTES)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        notes.insert(0, ROOT_NOTE)
    lines = ["About the warnings above (all harmless here):"]
    lines += [f'  - "{warning}": {why}' for warning, why in notes]
    return "\n".join(lines)
