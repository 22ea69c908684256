"""Template filter ``has_any_role``: show a page's parts only to users holding a role."""

from django import template

from annotation.accounts.roles import has_role

register = template.Library()


@register.filter
def has_any_role(user, roles: str) -> bool:
    """Whether ``user`` holds any of the comma-separated ``roles`` (superusers count as Admin).

    Args:
        user: the template's ``user``.
        roles: e.g. ``"Researcher,Admin"``.

    Returns:
        True if the user holds at least one of them.
    """
    return has_role(user, *(role.strip() for role in roles.split(",")))
