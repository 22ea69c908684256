"""App configuration for the leaderboards app: the first board with a scoring job's success,
and the boards warmed after scoring jobs, APES runs and AutoFAR-L runs."""

from django.apps import AppConfig

from scoring.apes.signals import apes_run_finished
from scoring.autofar.signals import autofar_run_finished
from scoring.scores.signals import scoring_job_finishing, scoring_job_succeeded


class LeaderboardsConfig(AppConfig):
    name = "scoring.leaderboards"
    label = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        """Subscribe to the scoring jobs and to the runs that write figures outside them."""
        from . import receivers

        scoring_job_finishing.connect(
            receivers.on_scoring_job_finishing, dispatch_uid="leaderboards-first-view"
        )
        scoring_job_succeeded.connect(
            receivers.on_scoring_job_succeeded, dispatch_uid="leaderboards-warm"
        )
        apes_run_finished.connect(receivers.on_apes_run_finished, dispatch_uid="leaderboards-apes")
        autofar_run_finished.connect(
            receivers.on_autofar_run_finished, dispatch_uid="leaderboards-autofar"
        )
