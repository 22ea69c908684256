"""App configuration for the releases app (versioned dataset exports)."""

from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "scoring.releases"
    label = "releases"
    verbose_name = "Releases"

    def ready(self) -> None:
        """Register the release build's job type."""
        from . import services  # noqa: F401 - registers the job type
