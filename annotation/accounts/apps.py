"""App configuration for the accounts app: a password change replaces the user's API tokens."""

from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_save


class AccountsConfig(AppConfig):
    name = "annotation.accounts"
    label = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self) -> None:
        """Subscribe to user saves (a new password deletes the user's API tokens)."""
        from . import receivers

        post_save.connect(
            receivers.on_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-pw"
        )
