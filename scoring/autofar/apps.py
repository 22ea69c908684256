"""App configuration for the autofar app: registers its leaderboard stamp part."""

from django.apps import AppConfig


class AutofarConfig(AppConfig):
    name = "scoring.autofar"
    label = "autofar"
    verbose_name = "AutoFAR"

    def ready(self) -> None:
        """Make every finished AutoFAR-L run change its dataset's leaderboard stamp."""
        from scoring.leaderboards.stamps import stamp_part_register

        from .selectors import autofar_stamp

        stamp_part_register(name="autofar", part=autofar_stamp)
        from .services import runs  # noqa: F401 - registers the AutoFAR-L job type
