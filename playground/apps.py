from __future__ import annotations

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "playground"

    def ready(self) -> None:
        # Web and worker processes alike: the operator's out-of-tree plugins (PLAYGROUND_PLUGINS).
        from playground.plugins import load_configured_plugins

        load_configured_plugins()

        # A challenge's results table follows its learners' runs: it listens to the runs' news
        # (services/runs/news.py), which never calls it by name.
        from playground.services.runs import news

        news.subscribe(_challenge_results_follow)


def _challenge_results_follow(*, run_id: int) -> None:
    """A run moved: the results pages of the challenge its owner joined are told. Imported when
    first needed, so the app's start-up does not load the engine for it."""
    from playground.services.challenges import notify_results_for_run

    notify_results_for_run(run_id=run_id)
