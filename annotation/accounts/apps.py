"""App configuration for the accounts app."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "annotation.accounts"
    label = "accounts"
    verbose_name = "Accounts and roles"
