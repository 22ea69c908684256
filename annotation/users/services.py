"""User-management services (writes): add, invite, deactivate, reactivate and reset users, accept
an invitation, revoke a user's API token."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.accounts import services as accounts
from annotation.accounts.roles import ROLES
from config.exceptions import ApplicationError, ConflictError

from .links import invitation_problem, secret_hash
from .models import Invitation, InvitationKind


def _password_checked(*, password: str, user) -> None:
    """Run Django's password validators (``AUTH_PASSWORD_VALIDATORS``) against ``user``.

    Raises:
        ValidationError: ``{"password": [every validator's message]}``.
    """
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise ValidationError({"password": error.messages}) from error


def _role_checked(role: str) -> None:
    if role not in ROLES:
        raise ValidationError({"role": [f"Choose one of {', '.join(ROLES)}, not {role!r}."]})


def _username_free(username: str) -> None:
    if get_user_model().objects.filter(username__iexact=username).exists():
        raise ConflictError(
            f"The username {username!r} is taken.",
            extra={"fields": {"username": [f"The username {username!r} is taken."]}},
        )


@transaction.atomic
def user_create(*, username: str, role: str, password: str, email: str = ""):
    """Add a user with a password chosen by the admin (checked by Django's validators).

    Args:
        username: the login name.
        role: ``Annotator``, ``Researcher`` or ``Admin``.
        password: the raw password.
        email: optional address.

    Returns:
        The new user.

    Raises:
        ConflictError: the username is taken (409).
        ValidationError: an unknown role, an invalid username or a password the validators
            refuse (each under its field).
    """
    _role_checked(role)
    _username_free(username)
    _password_checked(password=password, user=get_user_model()(username=username, email=email))
    return accounts.user_create(username=username, password=password, role=role, email=email)


def _invitation_issue(*, user, kind: str, created_by) -> tuple[Invitation, str]:
    """A new link for ``user``; the user's earlier open links become void."""
    now = timezone.now()
    user.invitations.filter(used_at=None, revoked_at=None).update(revoked_at=now)
    secret = secrets.token_urlsafe(32)
    invitation = Invitation(
        user=user,
        kind=kind,
        secret_hash=secret_hash(secret),
        created_by=created_by,
        created_at=now,
        expires_at=now + timedelta(days=settings.LOUPE_INVITE_DAYS),
    )
    invitation.full_clean()
    invitation.save()
    return invitation, secret


@transaction.atomic
def user_invite(*, username: str, role: str, created_by, email: str = "") -> tuple:
    """Add a user without a password and make their invitation link.

    The user can be given tasks at once; they log in after setting a password through the
    link, which works once, within ``LOUPE_INVITE_DAYS``.

    Args:
        username: the login name.
        role: ``Annotator``, ``Researcher`` or ``Admin``.
        created_by: the admin who invites.
        email: optional address (Loupe sends no mail: the admin passes the link on).

    Returns:
        ``(user, invitation, secret)``; the secret is not stored and cannot be shown again.

    Raises:
        ConflictError: the username is taken (409).
        ValidationError: an unknown role or an invalid username.
    """
    _role_checked(role)
    _username_free(username)
    user = accounts.user_create(username=username, password=None, role=role, email=email)
    invitation, secret = _invitation_issue(
        user=user, kind=InvitationKind.INVITE, created_by=created_by
    )
    return user, invitation, secret


@transaction.atomic
def user_password_reset(*, user, created_by) -> tuple[Invitation, str]:
    """Reset a user's password: the old one stops working and a one-time link sets a new one.

    The user's sessions end (their password hash changed), their API token is deleted and
    their earlier links become void. For a user who never set a password this is a new
    invitation link.

    Args:
        user: the user.
        created_by: the admin.

    Returns:
        ``(invitation, secret)``.

    Raises:
        ApplicationError: the user is deactivated, or is the admin themselves.
    """
    if not user.is_active:
        raise ApplicationError(f"{user.username} is deactivated: reactivate them first.")
    if user.pk == created_by.pk:
        raise ApplicationError("You cannot reset your own password here: it would log you out.")
    invited = not user.has_usable_password() and user.last_login is None
    user.set_unusable_password()
    user.save(update_fields=["password"])
    accounts.token_revoke(user=user)
    kind = InvitationKind.INVITE if invited else InvitationKind.RESET
    return _invitation_issue(user=user, kind=kind, created_by=created_by)


@transaction.atomic
def invitation_accept(*, secret: str, password: str):
    """Set a user's password through their link, which is then used up.

    Args:
        secret: the link's secret.
        password: the new password (Django's validators apply).

    Returns:
        The user, who may now log in.

    Raises:
        ApplicationError: an unknown link (404), a deactivated user's (403), or a used,
            withdrawn or expired one (410).
        ValidationError: a password the validators refuse (``{"password": [...]}``).
    """
    invitation = (
        Invitation.objects.select_for_update()
        .select_related("user")
        .filter(secret_hash=secret_hash(secret))
        .first()
    )
    problem = invitation_problem(invitation)
    if problem is not None:
        if invitation is None:
            code = 404
        else:
            code = 403 if not invitation.user.is_active else 410
        raise ApplicationError(problem, status_code=code)
    user = invitation.user
    _password_checked(password=password, user=user)
    user.set_password(password)  # the save deletes any API token (accounts' receiver)
    user.save(update_fields=["password"])
    now = timezone.now()
    invitation.used_at = now
    invitation.save(update_fields=["used_at"])
    user.invitations.filter(used_at=None, revoked_at=None).update(revoked_at=now)
    return user


@transaction.atomic
def user_deactivate(*, user, by) -> None:
    """Deactivate a user: they can no longer log in, their sessions end, their API token is
    deleted and their open links become void. Their tasks stay assigned (reassign them on the
    campaign's page) and their work is kept.

    Args:
        user: the user.
        by: the admin.

    Raises:
        ApplicationError: the admin deactivating themselves.
    """
    if user.pk == by.pk:
        raise ApplicationError("You cannot deactivate your own account.")
    user.is_active = False
    user.save(update_fields=["is_active"])
    accounts.token_revoke(user=user)
    user.invitations.filter(used_at=None, revoked_at=None).update(revoked_at=timezone.now())


@transaction.atomic
def user_reactivate(*, user) -> None:
    """Let a deactivated user log in again (with their old password; reset it if needed).

    Args:
        user: the user.
    """
    user.is_active = True
    user.save(update_fields=["is_active"])


@transaction.atomic
def user_token_revoke(*, user) -> int:
    """Delete a user's API token (an admin's action; the user may obtain a new one).

    Args:
        user: the token's owner.

    Returns:
        How many tokens were deleted.
    """
    return accounts.token_revoke(user=user)
