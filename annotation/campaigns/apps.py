"""App configuration for the campaigns app."""

from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "annotation.campaigns"
    label = "campaigns"
    verbose_name = "Annotation campaigns"
