"""Page views: thin shells; the pages' data comes from the JSON API via ES modules."""

import math
from datetime import timedelta
from functools import wraps

from axes.helpers import get_client_username
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.password_validation import password_validators_help_texts
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.accounts.selectors import login_lockout_get
from annotation.campaigns.models import CampaignKind
from annotation.campaigns.selectors import task_get
from annotation.campaigns.services.campaigns import DEFAULT_SCORERS
from annotation.users.selectors import invitation_lookup
from config.uploads import human_size
from scoring.metrics.suggest.registry import scorer_infos


@login_required
def home(request):
    """The start page: the user's roles and the datasets (loaded by ``home.js``)."""
    return render(request, "frontend/home.html")


@login_required
def tasks(request):
    """My tasks: progress, the next unfinished task and the list (loaded by ``tasks.js``)."""
    return render(request, "frontend/tasks.html")


@login_required
def workspace(request, task_id: int):
    """One task's workspace: the FAM workspace (``workspace.js``), or for a PolyTope item the
    span workspace (``span-workspace.js``). The API checks who may see the task; a task the
    user may not see gets the FAM page, whose script then says there is no such task, and a
    PolyTope item a researcher asks for the 403 page with the reason.
    """
    try:
        kind = task_get(pk=task_id, user=request.user).campaign.kind
    except Http404:
        kind = CampaignKind.FAM
    except PermissionDenied as error:
        context = {"message": str(error)}
        return render(request, "frontend/forbidden.html", context, status=403)
    template = "span_workspace" if kind == CampaignKind.POLYTOPE else "workspace"
    return render(request, f"frontend/{template}.html", {"task_id": task_id})


def researcher_page(view):
    """Log-in required; researchers and admins see the page, anyone else a 403 page."""

    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not has_role(request.user, RESEARCHER, ADMIN):
            return render(request, "frontend/forbidden.html", status=403)
        return view(request, *args, **kwargs)

    return wrapped


@researcher_page
def upload(request):
    """Upload system outputs: the form and its report (``upload.js``)."""
    limit = settings.LOUPE_UPLOAD_MAX_BYTES
    return render(
        request, "frontend/upload.html", {"max_bytes": limit, "max_size": human_size(limit)}
    )


@researcher_page
def leaderboards(request):
    """The datasets, each linking to its leaderboard (``leaderboards.js``)."""
    return render(request, "frontend/leaderboards.html")


@researcher_page
def crossdataset(request):
    """Cross-dataset evaluation: U matrices, stiffness, stableness (``crossdataset.js``)."""
    return render(request, "frontend/crossdataset.html")


@researcher_page
def leaderboard(request, slug: str):
    """One dataset's leaderboard: table, coverage, jobs, downloads, plots, judgments.

    ``leaderboard.js`` draws it; the judgment form's size limit is the uploads' one.
    """
    limit = settings.LOUPE_UPLOAD_MAX_BYTES
    context = {"slug": slug, "max_bytes": limit, "max_size": human_size(limit)}
    return render(request, "frontend/leaderboard.html", context)


@researcher_page
def dataset_bias(request, slug: str):
    """A dataset's bias measures: table, plots and the Compute button (``bias.js``)."""
    return render(request, "frontend/dataset_bias.html", {"slug": slug})


@researcher_page
def leaderboard_system(request, slug: str, system: str):
    """One system's versions and per-document scores on a dataset (``system.js``)."""
    return render(request, "frontend/system.html", {"slug": slug, "system": system})


@researcher_page
def leaderboard_document(request, slug: str, system: str, external_id: str):
    """One output against the document's support groups (``output-document.js``)."""
    context = {"slug": slug, "system": system, "external_id": external_id}
    return render(request, "frontend/output_document.html", context)


def admin_page(view):
    """Log-in required; admins see the page, anyone else a 403 page."""

    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not has_role(request.user, ADMIN):
            context = {"message": "Only admins may see this page."}
            return render(request, "frontend/forbidden.html", context, status=403)
        return view(request, *args, **kwargs)

    return wrapped


@admin_page
def manage_datasets(request):
    """The datasets with the import form, its validate-only button and its report."""
    return render(request, "frontend/manage_datasets.html")


@admin_page
def manage_dataset(request, slug: str):
    """One dataset: documents, categories, annotation sets, campaigns and releases."""
    return render(request, "frontend/manage_dataset.html", {"slug": slug})


@researcher_page
def dataset_agreement(request, slug: str):
    """Agreement among a dataset's annotation sets (e.g. the XSum release's three workers)."""
    return render(request, "frontend/dataset_agreement.html", {"slug": slug})


@researcher_page
def manage_releases(request, slug: str):
    """A dataset's versioned releases: export, progress, manifests, diffs and downloads."""
    return render(request, "frontend/manage_releases.html", {"slug": slug})


@admin_page
def manage_users(request):
    """The users: add, invite, deactivate, reactivate, reset, revoke tokens; who works on what
    (``manage-users.js``)."""
    context = {
        "invite_days": settings.LOUPE_INVITE_DAYS,
        "password_rules": password_validators_help_texts(),
    }
    return render(request, "frontend/manage_users.html", context)


def invite(request, secret: str):
    """Set a password through an invitation or reset link (``invite.js`` posts it to the API).

    No login needed: the link's secret is the credential. A link that cannot be used gets a
    page saying why (404 unknown, 403 a deactivated account's, 410 used, withdrawn or expired).
    """
    invitation, problem = invitation_lookup(secret=secret)
    if problem is not None:
        if invitation is None:
            code = 404
        else:
            code = 403 if not invitation.user.is_active else 410
        return render(request, "frontend/invite_closed.html", {"message": problem}, status=code)
    context = {
        "password_rules": password_validators_help_texts(),
        "username": invitation.user.username,
        "kind": invitation.kind,
        "expires_at": invitation.expires_at,
    }
    response = render(request, "frontend/invite.html", context)
    # The secret is in this page's URL: no other site hears of it, and no cache keeps it.
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response


@admin_page
def manage_campaigns(request):
    """Every campaign with its state and progress."""
    return render(request, "frontend/manage_campaigns.html")


@admin_page
def manage_campaign_new(request):
    """The form that creates a FAM or PolyTope campaign (``campaign-form.js``).

    The suggestion scorers are the registry's (static configuration, like the upload limit):
    the defaults come checked, and one this installation cannot run comes disabled.
    """
    scorers = [
        {
            "name": info.name,
            "description": info.description,
            "extra": info.extra,
            "available": info.available,
            "checked": info.name in DEFAULT_SCORERS and info.available,
        }
        for info in scorer_infos()
    ]
    return render(request, "frontend/manage_campaign_new.html", {"scorers": scorers})


@admin_page
def manage_campaign(request, campaign_id: int):
    """One campaign: progress per annotator, its CSV, and edits while it runs."""
    return render(request, "frontend/manage_campaign.html", {"campaign_id": campaign_id})


@login_required
def campaign_agreement(request, campaign_id: int):
    """A campaign's agreement: per campaign with CIs, per pair, per document, lowest first.

    Admins and the campaign's adjudicators may read it; the API decides (as for the
    adjudication pages), and the page's script says why when it refuses.
    """
    return render(request, "frontend/campaign_agreement.html", {"campaign_id": campaign_id})


@login_required
def adjudication_list(request, campaign_id: int):
    """A campaign's documents to adjudicate (admins and the campaign's adjudicators; the API
    decides who may see them)."""
    return render(request, "frontend/adjudication_list.html", {"campaign_id": campaign_id})


@login_required
def adjudication_document(request, campaign_id: int, document_id: int):
    """One document's annotations side by side, and the gold version being built."""
    context = {"campaign_id": campaign_id, "document_id": document_id}
    return render(request, "frontend/adjudication.html", context)


def login_locked_out(request, original_response=None, credentials=None):
    """The page for a login refused by the lockout (django-axes' ``AXES_LOCKOUT_CALLABLE``).

    Used by the login page and the admin's login: says that the username is locked for this
    address, until when, and what to do, with status 429 and ``Retry-After``.

    Args:
        request: the refused login request (axes has set ``axes_ip_address`` on it).
        original_response: the response the login view made (the form again); replaced.
        credentials: what was tried (the username; axes hides the password).

    Returns:
        The lockout page.
    """
    username = get_client_username(request, credentials) or ""
    ip_address = getattr(request, "axes_ip_address", None)
    now = timezone.now()
    lockout = login_lockout_get(username=username, ip_address=ip_address, now=now)
    cooloff = settings.AXES_COOLOFF_TIME
    # No lockout found: it ended between axes' check and this one; the next try may pass.
    until = lockout.until if lockout else now
    seconds = lockout.seconds_left(now) if lockout else 1
    # The page shows hours and minutes: round up, so "after 10:15" is never still refused.
    if until.second or until.microsecond:
        until = until.replace(second=0, microsecond=0) + timedelta(minutes=1)
    context = {
        "username": username,
        "ip_address": ip_address,
        "cooloff_minutes": int(cooloff.total_seconds() // 60),
        "minutes_left": math.ceil(seconds / 60),
        "until": until,
    }
    response = render(
        request, "frontend/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
    response["Retry-After"] = str(seconds)
    return response
