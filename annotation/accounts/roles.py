"""The three roles (Django groups) and DRF permission classes built on them."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

ANNOTATOR = "Annotator"
RESEARCHER = "Researcher"
ADMIN = "Admin"
ROLES = (ANNOTATOR, RESEARCHER, ADMIN)


def user_roles(user) -> frozenset[str]:
    """The roles a user holds; superusers always hold Admin.

    Args:
        user: a Django user (anonymous users have no role).

    Returns:
        A frozenset of role names.
    """
    if user is None or not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_loupe_roles", None)
    if cached is None:
        cached = frozenset(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            cached |= {ADMIN}
        user._loupe_roles = cached
    return cached


def has_role(user, *roles: str) -> bool:
    """Whether ``user`` holds at least one of ``roles``.

    Args:
        user: a Django user (or anonymous user).
        *roles: role names.

    Returns:
        True if the user holds any of them.
    """
    return bool(user_roles(user) & set(roles))


class _RolePermission(BasePermission):
    roles: tuple[str, ...] = ()
    message = "Your role does not allow this."

    def has_permission(self, request, view) -> bool:
        return has_role(request.user, *self.roles)


class IsAdmin(_RolePermission):
    roles = (ADMIN,)
    message = "Only admins may do this."


class IsResearcherOrAdmin(_RolePermission):
    roles = (RESEARCHER, ADMIN)
    message = "Only researchers and admins may do this."


class IsAnyRole(_RolePermission):
    roles = ROLES
    message = "Your account has no Loupe role yet; ask an admin to assign one."
