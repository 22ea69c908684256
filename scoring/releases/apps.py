"""App configuration for the releases app (versioned dataset exports)."""

from django.apps import AppConfig


class ReleasesConfig(AppConfig):
    name = "scoring.releases"
    label = "releases"
    verbose_name = "Releases"
