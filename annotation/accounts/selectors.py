"""Account selectors (reads): users and their roles, and the login lockout that django-axes holds
for a username."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Max, Q, Sum
from django.utils import timezone

from .roles import ADMIN, ROLES


@dataclass(frozen=True)
class LoginLockout:
    """A username locked out from one client address after too many failed logins."""

    username: str
    ip_address: str | None
    failures: int
    failure_limit: int
    cooloff: timedelta
    until: datetime

    def seconds_left(self, now: datetime | None = None) -> int:
        """Whole seconds until logins are accepted again (at least 1)."""
        left = (self.until - (now or timezone.now())).total_seconds()
        return max(1, math.ceil(left))

    @property
    def cooloff_minutes(self) -> int:
        """The configured cool-off in whole minutes."""
        return math.ceil(self.cooloff.total_seconds() / 60)


def login_lockout_get(
    *, username: str, ip_address: str | None, now: datetime | None = None
) -> LoginLockout | None:
    """The lockout of ``username`` from ``ip_address``, if its failed logins reached the limit.

    The count is the one django-axes keeps (``AXES_LOCKOUT_PARAMETERS`` is the combination of
    username and address): failures recorded within the cool-off. A lockout ends one cool-off
    after the last recorded failure (failures during a lockout are not recorded).

    Args:
        username: the username tried.
        ip_address: the client's address, as django-axes saw it.
        now: the current time (default: now).

    Returns:
        The lockout, or ``None`` when that username may log in from that address.
    """
    now = now or timezone.now()
    cooloff = settings.AXES_COOLOFF_TIME
    limit = settings.AXES_FAILURE_LIMIT
    recent = AccessAttempt.objects.filter(
        username=username, ip_address=ip_address, attempt_time__gte=now - cooloff
    ).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    failures = recent["failures"] or 0
    if failures < limit:
        return None
    return LoginLockout(
        username=username,
        ip_address=ip_address,
        failures=failures,
        failure_limit=limit,
        cooloff=cooloff,
        until=recent["last"] + cooloff,
    )


def user_list(*, role: str | None = None) -> list[dict]:
    """Active users with their Loupe roles, by username (superusers hold Admin).

    Args:
        role: only the holders of this role (``Annotator``, ``Researcher``, ``Admin``), or
            every user with a role when None.

    Returns:
        ``[{"username", "roles": [sorted role names]}]``.
    """
    users = get_user_model().objects.filter(is_active=True)
    if role is None:
        users = users.filter(Q(groups__name__in=ROLES) | Q(is_superuser=True))
    elif role == ADMIN:
        users = users.filter(Q(groups__name=ADMIN) | Q(is_superuser=True))
    else:
        users = users.filter(groups__name=role)
    roles: dict[str, set[str]] = {}
    for username, superuser in users.distinct().values_list("username", "is_superuser"):
        roles[username] = {ADMIN} if superuser else set()
    held = (
        get_user_model()
        .objects.filter(username__in=list(roles), groups__name__in=ROLES)
        .values_list("username", "groups__name")
    )
    for username, name in held:
        roles[username].add(name)
    return [{"username": name, "roles": sorted(roles[name])} for name in sorted(roles)]
