"""A learner of a shared challenge: the nickname they chose for the teacher's results page."""

from __future__ import annotations

from django.db import models

from playground.models.scenarios import Scenario


class ChallengeLearner(models.Model):
    """One learner (an anonymous session, by its owner token) of one challenge scenario. Their
    attempts are their runs of their forks of it (presenters/challenge_results.py)."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="learners")
    owner_token = models.CharField(max_length=64, db_index=True)
    nickname = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scenario", "owner_token"], name="one_nickname_per_learner")]

    def __str__(self) -> str:
        return f"{self.nickname} on {self.scenario_id}"
