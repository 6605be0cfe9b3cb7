"""The run page, one presenter per panel.

`screen.run_screen` picks what a viewer sees (the head, or a pinned step/cycle, partly revealed
while stepping extension points) as a `Screen`; each panel module turns a Screen into the
context of its partial in templates/playground/runs/partials/ (queues.html, cluster.html, ...).
The templates reach the panels through the Screen's properties (`screen.queues`, ...); which
panels there are, where and for whom, is the panel registry (`panels.py`), listed nowhere else.
"""

from playground.presenters.runs.screen import Screen, run_screen

__all__ = ["Screen", "run_screen"]
