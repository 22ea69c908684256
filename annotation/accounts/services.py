"""Account services (writes): create users with a role, hand out and revoke API tokens."""

from __future__ import annotations

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from rest_framework.authtoken.models import Token

from .roles import ADMIN, ROLES
from .tokens import token_expired


@transaction.atomic
def user_create(*, username: str, password: str | None, role: str, email: str = ""):
    """Create a user holding one role; Admins may also use the Django admin site.

    Args:
        username: the login name.
        password: the raw password (stored hashed); None: no usable password yet (an
            invitation sets it).
        role: one of ``Annotator``, ``Researcher`` or ``Admin``.
        email: optional address.

    Returns:
        The new user.

    Raises:
        ValueError: unknown role.
        django.core.exceptions.ValidationError: invalid or taken username.
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {ROLES}")
    user = get_user_model()(username=username, email=email, is_staff=role == ADMIN)
    user.set_password(password)
    user.full_clean()
    user.save()
    # The groups come from a data migration; get_or_create also survives a flushed database.
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)
    if role == ADMIN:
        user.is_superuser = True
        user.save(update_fields=["is_superuser"])
    return user


@transaction.atomic
def user_token_obtain(*, user, ip_address: str | None) -> Token:
    """The API token of a user who has just given the right password (made on first use).

    A token older than ``LOUPE_TOKEN_DAYS`` is replaced by a new one. As after a login on the
    form (``AXES_RESET_ON_SUCCESS``), the user's failed logins from that address are forgotten,
    so a success below the lockout limit starts the count again.

    Args:
        user: the authenticated user.
        ip_address: the client's address, as django-axes counts it.

    Returns:
        The user's ``Token``.
    """
    if settings.AXES_RESET_ON_SUCCESS and ip_address:
        axes_reset(ip=ip_address, username=user.get_username())
    token, created = Token.objects.select_for_update().get_or_create(user=user)
    if not created and token_expired(token=token):
        token.delete()
        token = Token.objects.create(user=user)
    return token


@transaction.atomic
def token_revoke(*, user) -> int:
    """Delete a user's API tokens: scripts using them get 401 until a new one is obtained.

    Args:
        user: the token's owner.

    Returns:
        How many tokens were deleted (0 or 1).
    """
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted
