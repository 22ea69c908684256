"""Invitation links: the stored hash of a link's secret, and why a link cannot be used."""

from __future__ import annotations

import hashlib

from django.utils import timezone

from .models import Invitation

# Where a link points (the page is the frontend's; the API hands the link out).
INVITE_PATH = "/invite/{secret}/"


def secret_hash(secret: str) -> str:
    """The SHA-256 (hex) under which a link's secret is stored.

    Args:
        secret: the secret of an invitation link.

    Returns:
        64 hex digits.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def invitation_problem(invitation: Invitation | None, now=None) -> str | None:
    """Why a link cannot be used, in a sentence for its holder (None: it can).

    Args:
        invitation: the link's invitation, or None for an unknown secret.
        now: the current time (default: now).

    Returns:
        The reason, or None.
    """
    now = now or timezone.now()
    ask = "Ask an admin for a new link."
    if invitation is None:
        return f"This link is not valid: check that it was copied whole. {ask}"
    if not invitation.user.is_active:
        return "This account is deactivated. Ask an admin to reactivate it."
    if invitation.used_at is not None:
        return f"This link has been used already: each link works once. {ask}"
    if invitation.revoked_at is not None:
        return f"This link was withdrawn: a newer link replaced it. {ask}"
    if invitation.expires_at <= now:
        return f"This link expired on {invitation.expires_at:%Y-%m-%d %H:%M} UTC. {ask}"
    return None
