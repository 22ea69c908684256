"""App configuration for the leaderboards app."""

from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "scoring.leaderboards"
    label = "leaderboards"
    verbose_name = "Leaderboards"
