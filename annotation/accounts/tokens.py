"""When an API token expires (no model import: the authentication class loads with the settings)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone


def token_expires_at(*, token) -> datetime:
    """When an API token stops working: ``LOUPE_TOKEN_DAYS`` after it was made.

    Args:
        token: a DRF ``Token``.

    Returns:
        The moment it expires.
    """
    return token.created + timedelta(days=settings.LOUPE_TOKEN_DAYS)


def token_expired(*, token, now: datetime | None = None) -> bool:
    """Whether an API token is too old to be accepted.

    Args:
        token: a DRF ``Token``.
        now: the current time (default: now).

    Returns:
        True once ``LOUPE_TOKEN_DAYS`` have passed since it was made.
    """
    return (now or timezone.now()) >= token_expires_at(token=token)
