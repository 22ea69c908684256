"""App configuration for the autofar app."""

from django.apps import AppConfig


class AutofarConfig(AppConfig):
    name = "scoring.autofar"
    label = "autofar"
    verbose_name = "AutoFAR"
