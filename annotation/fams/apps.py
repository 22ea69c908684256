"""App configuration for the FAMs app."""

from django.apps import AppConfig


class FamsConfig(AppConfig):
    name = "annotation.fams"
    label = "fams"
    verbose_name = "Facet-aware mappings"
