"""Receivers of the accounts app: a user's new password replaces their API tokens."""

from __future__ import annotations

from rest_framework.authtoken.models import Token


def on_user_saved(sender, instance, **kwargs) -> None:
    """Delete the user's API tokens when the save stored a new password.

    ``set_password`` keeps the raw password in ``_password`` until the save after it; Django's
    rehash of an unchanged password on login clears it first, so that does not count. The next
    ``POST /api/auth/token/`` makes a new token.

    Args:
        sender: the user model.
        instance: the saved user.
        **kwargs: the signal's other arguments.
    """
    if getattr(instance, "_password", None) is not None:
        Token.objects.filter(user=instance).delete()
