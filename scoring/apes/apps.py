"""App configuration for the apes app."""

from django.apps import AppConfig


class ApesConfig(AppConfig):
    name = "scoring.apes"
    label = "apes"
    verbose_name = "APES"
