"""App configuration for the bias app."""

from django.apps import AppConfig


class BiasConfig(AppConfig):
    name = "scoring.bias"
    label = "bias"
    verbose_name = "Bias"
