"""App configuration for the uploads app: researchers register systems and upload their outputs."""

from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "scoring.uploads"
    label = "uploads"
    verbose_name = "Uploads"
