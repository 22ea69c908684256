"""App configuration for the autofar app."""

from django.apps import AppConfig


class AutofarConfig(AppConfig):
    name = "scoring.autofar"
    label = "autofar"
    verbose_name = "AutoFAR"

    def ready(self) -> None:
        """Register the AutoFAR-L job type with the job kernel."""
        from .services import runs  # noqa: F401 - registers the AutoFAR-L job type
