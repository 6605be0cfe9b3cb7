"""The run page, one presenter per panel.

`picker.run_screen` picks what a viewer sees (the head, or a pinned step/cycle, partly revealed
while stepping extension points) as a `Screen`; each panel module turns a Screen into the
context of its partial in templates/playground/runs/partials/ (queues.html, cluster.html, ...).
The templates reach the panels through the Screen's properties (`screen.queues`, ...); which
panels there are, where and for whom, is the panel registry (`panels.py`), listed nowhere else.
"""

from playground.presenters.runs import facts, panels  # noqa: F401  (they install the Screen's properties)
from playground.presenters.runs.picker import run_screen
from playground.presenters.runs.screen import Screen

__all__ = ["Screen", "run_screen"]
