"""App configuration for the users app."""

from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "annotation.users"
    label = "users"
    verbose_name = "User management"
