"""App configuration for the crossdataset app."""

from django.apps import AppConfig


class CrossdatasetConfig(AppConfig):
    name = "scoring.crossdataset"
    label = "crossdataset"
    verbose_name = "Cross-dataset"

    def ready(self) -> None:
        """Register the cross-dataset tests' job type."""
        from . import services  # noqa: F401 - registers the job type
