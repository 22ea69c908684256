"""App configuration for the apes app."""

from django.apps import AppConfig


class ApesConfig(AppConfig):
    name = "scoring.apes"
    label = "apes"
    verbose_name = "APES"

    def ready(self) -> None:
        """Register the leaderboard stamp part: APES scores are written outside scoring jobs."""
        from scoring.leaderboards.stamps import stamp_part_register

        from .selectors import apes_stamp

        stamp_part_register(name="apes", part=apes_stamp)
        from . import services  # noqa: F401 - registers the APES job type
