"""App configuration for the leaderboards app: warms the boards after APES and AutoFAR runs."""

from django.apps import AppConfig

from scoring.apes.signals import apes_run_finished
from scoring.autofar.signals import autofar_run_finished


class LeaderboardsConfig(AppConfig):
    name = "scoring.leaderboards"
    label = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        """Subscribe to the runs that write figures outside scoring jobs."""
        from . import receivers

        apes_run_finished.connect(receivers.on_apes_run_finished, dispatch_uid="leaderboards-apes")
        autofar_run_finished.connect(
            receivers.on_autofar_run_finished, dispatch_uid="leaderboards-autofar"
        )
