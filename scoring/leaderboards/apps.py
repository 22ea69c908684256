"""App configuration for the leaderboards app: subscribes to the scores app's job events."""

from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "scoring.leaderboards"
    label = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        """Store the first view with a scoring job's success and warm the rest after it."""
        from scoring.scores.signals import (
            scores_written,
            scoring_job_finishing,
            scoring_job_succeeded,
        )

        from . import receivers

        scoring_job_finishing.connect(
            receivers.on_scoring_job_finishing, dispatch_uid="leaderboards-first-view"
        )
        scoring_job_succeeded.connect(
            receivers.on_scoring_job_succeeded, dispatch_uid="leaderboards-warm"
        )
        scores_written.connect(receivers.on_scores_written, dispatch_uid="leaderboards-scores")
