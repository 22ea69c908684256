"""App configuration for the apes app."""

from django.apps import AppConfig


class ApesConfig(AppConfig):
    name = "scoring.apes"
    label = "apes"
    verbose_name = "APES"

    def ready(self) -> None:
        """Register the APES job type with the job kernel."""
        from . import services  # noqa: F401 - registers the APES job type
