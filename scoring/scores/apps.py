"""App configuration for the scores app."""

from django.apps import AppConfig


class ScoresConfig(AppConfig):
    name = "scoring.scores"
    label = "scores"
    verbose_name = "Scores"
