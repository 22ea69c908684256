"""App configuration for the agreement app."""

from django.apps import AppConfig


class AgreementConfig(AppConfig):
    name = "annotation.agreement"
    label = "agreement"
    verbose_name = "Agreement"
