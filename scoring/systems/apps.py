"""App configuration for the systems app."""

from django.apps import AppConfig


class SystemsConfig(AppConfig):
    name = "scoring.systems"
    label = "systems"
    verbose_name = "Systems"
