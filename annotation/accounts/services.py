"""Account services (writes): create users with a role."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from .roles import ADMIN, ROLES


@transaction.atomic
def user_create(*, username: str, password: str, role: str, email: str = ""):
    """Create a user holding one role; Admins may also use the Django admin site.

    Args:
        username: the login name.
        password: the raw password (stored hashed).
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
