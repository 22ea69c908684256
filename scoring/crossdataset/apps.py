"""App configuration for the crossdataset app."""

from django.apps import AppConfig


class CrossdatasetConfig(AppConfig):
    name = "scoring.crossdataset"
    label = "crossdataset"
    verbose_name = "Cross-dataset"
