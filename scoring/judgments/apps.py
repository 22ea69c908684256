"""App configuration for the human judgments app."""

from django.apps import AppConfig


class JudgmentsConfig(AppConfig):
    name = "scoring.judgments"
    label = "judgments"
    verbose_name = "Human judgments"
