"""The app's models, one module per concept; importing this package registers them all.

Migrations name `playground.models.new_share_token`, so it stays importable from here.
"""

from playground.models.challenges import ChallengeLearner
from playground.models.diagnostics import DiagnosticPing
from playground.models.runs import Run, RunAction, RunCheckpoint, RunEvent, RunFrame
from playground.models.scenarios import PreparedStart, Scenario, ScenarioObject, ScenarioUpload, new_share_token

__all__ = [
    "ChallengeLearner",
    "DiagnosticPing",
    "PreparedStart",
    "Run",
    "RunAction",
    "RunCheckpoint",
    "RunEvent",
    "RunFrame",
    "Scenario",
    "ScenarioObject",
    "ScenarioUpload",
    "new_share_token",
]
