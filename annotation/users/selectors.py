"""User-management selectors (reads): every user with role, state, last login, open link, API
token and tasks per campaign (who is active on what), and the state of an invitation link."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Prefetch, Q
from django.shortcuts import get_object_or_404
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.accounts.roles import ADMIN, ROLES
from annotation.accounts.tokens import token_expires_at
from annotation.campaigns.models import Task, TaskPresence, TaskStatus
from annotation.campaigns.selectors import presence_seconds

from .links import invitation_problem, secret_hash
from .models import Invitation

STATES = ("active", "invited", "reset", "deactivated")


def user_get(*, username: str):
    """A user by username (active or not).

    Args:
        username: the login name.

    Returns:
        The user.

    Raises:
        Http404: no such user.
    """
    return get_object_or_404(get_user_model(), username=username)


def _state(user, invitation: Invitation | None) -> str:
    if not user.is_active:
        return "deactivated"
    if user.has_usable_password():
        return "active"
    if invitation is not None and invitation.kind == "reset":
        return "reset"
    return "invited" if user.last_login is None else "reset"


def _campaigns_by_user(user_ids: list[int]) -> dict[int, list[dict]]:
    """Per user, their tasks per campaign: counts by state and the last work on them."""
    rows = (
        Task.objects.filter(annotator_id__in=user_ids)
        .values(
            "annotator_id",
            "campaign_id",
            "campaign__slug",
            "campaign__name",
            "campaign__kind",
            "campaign__status",
        )
        .annotate(
            total=Count("id"),
            submitted=Count("id", filter=Q(status=TaskStatus.SUBMITTED)),
            in_progress=Count("id", filter=Q(status=TaskStatus.IN_PROGRESS)),
            last_worked=Max("updated_at", filter=~Q(status=TaskStatus.TODO)),
        )
        .order_by("annotator_id", "campaign__slug")
    )
    seen = timezone.now() - timedelta(seconds=presence_seconds())
    working = set(
        TaskPresence.objects.filter(user_id__in=user_ids, left=False, last_seen__gte=seen)
        .values_list("user_id", "task__campaign_id")
        .distinct()
    )
    found: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        user_id = row["annotator_id"]
        found[user_id].append(
            {
                "id": row["campaign_id"],
                "slug": row["campaign__slug"],
                "name": row["campaign__name"],
                "kind": row["campaign__kind"],
                "status": row["campaign__status"],
                "total": row["total"],
                "submitted": row["submitted"],
                "in_progress": row["in_progress"],
                "todo": row["total"] - row["submitted"] - row["in_progress"],
                "last_worked": row["last_worked"],
                "working_now": (user_id, row["campaign_id"]) in working,
            }
        )
    return found


def user_overview(
    *, role: str | None = None, state: str | None = None, username: str | None = None
) -> list[dict]:
    """Every user, by username, with what an admin needs to manage them.

    Args:
        username: only this user.
        role: only the holders of this role (superusers hold Admin); None: everyone, with a
            role or not.
        state: only users in this state (``active``, ``invited``, ``reset``, ``deactivated``).

    Returns:
        One dict per user: ``username``, ``email``, ``roles``, ``state``, ``is_active``,
        ``last_login``, ``date_joined``, ``invitation`` (the open link's ``kind``,
        ``created_at`` and ``expires_at``, or None), ``token`` (``created``, ``expires_at``,
        ``expired``, or None) and ``campaigns`` (per campaign the user has tasks in: its
        ``id``, ``slug``, ``name``, ``kind``, ``status``, task counts ``total``, ``todo``,
        ``in_progress``, ``submitted``, ``last_worked`` and ``working_now``: a workspace of
        it is open).
    """
    now = timezone.now()
    users = get_user_model().objects.order_by("username")
    if username is not None:
        users = users.filter(username=username)
    if role == ADMIN:
        users = users.filter(Q(groups__name=ADMIN) | Q(is_superuser=True)).distinct()
    elif role is not None:
        users = users.filter(groups__name=role)
    open_links = Invitation.objects.filter(used_at=None, revoked_at=None, expires_at__gt=now)
    users = users.prefetch_related(
        Prefetch("groups", to_attr="_loupe_groups"),
        Prefetch("invitations", queryset=open_links, to_attr="_open_links"),
    )
    users = list(users)
    ids = [u.pk for u in users]
    tokens = {t.user_id: t for t in Token.objects.filter(user_id__in=ids)}
    campaigns = _campaigns_by_user(ids)
    result = []
    for user in users:
        invitation = user._open_links[0] if user._open_links else None
        roles = {g.name for g in user._loupe_groups if g.name in ROLES}
        if user.is_superuser:
            roles.add(ADMIN)
        token = tokens.get(user.pk)
        entry = {
            "username": user.username,
            "email": user.email,
            "roles": sorted(roles),
            "state": _state(user, invitation),
            "is_active": user.is_active,
            "last_login": user.last_login,
            "date_joined": user.date_joined,
            "invitation": None,
            "token": None,
            "campaigns": campaigns.get(user.pk, []),
        }
        if invitation is not None:
            entry["invitation"] = {
                "kind": invitation.kind,
                "created_at": invitation.created_at,
                "expires_at": invitation.expires_at,
            }
        if token is not None:
            expires = token_expires_at(token=token)
            entry["token"] = {
                "created": token.created,
                "expires_at": expires,
                "expired": now >= expires,
            }
        if state is None or entry["state"] == state:
            result.append(entry)
    return result


def invitation_lookup(*, secret: str) -> tuple[Invitation | None, str | None]:
    """The invitation behind a link's secret and why it cannot be used, if it cannot.

    Args:
        secret: the secret in the link.

    Returns:
        ``(invitation or None, problem or None)``: a usable link has no problem.
    """
    invitation = (
        Invitation.objects.select_related("user").filter(secret_hash=secret_hash(secret)).first()
    )
    return invitation, invitation_problem(invitation)
