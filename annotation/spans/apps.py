"""App configuration for the spans app."""

from django.apps import AppConfig


class SpansConfig(AppConfig):
    name = "annotation.spans"
    label = "spans"
    verbose_name = "Error spans"
