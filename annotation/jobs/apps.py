"""App config of the job kernel."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "annotation.jobs"
    label = "jobs"
    verbose_name = "Long jobs"
