"""System services (writes): register a system, or name the one an upload is for."""

from __future__ import annotations

from django.db import transaction

from annotation.accounts.roles import ADMIN, has_role
from annotation.corpus.models import Dataset
from annotation.imports.bundle import SystemRecord
from config.exceptions import ApplicationError

from ..models import System


@transaction.atomic
def system_create(
    *, slug: str, name: str, kind: str, owner=None, description: str = "", trained_on: str = ""
) -> System:
    """Register a summarization system.

    Args:
        slug: unique identifier used in URLs and files.
        name: display name.
        kind: ``extractive`` or ``abstractive``.
        owner: the researcher who registers it.
        description: free text.
        trained_on: the training data's label, e.g. ``CNN/DM``.

    Returns:
        The new system.

    Raises:
        django.core.exceptions.ValidationError: taken slug or unknown kind.
    """
    system = System(
        slug=slug, name=name, kind=kind, owner=owner, description=description, trained_on=trained_on
    )
    system.full_clean()
    system.save()
    return system


def system_record_for_upload(
    *,
    slug: str,
    name: str = "",
    kind: str = "",
    description: str = "",
    trained_on: str = "",
    user=None,
) -> SystemRecord:
    """The system record an upload names: the existing system, or a new one.

    Args:
        slug: the system's slug.
        name: display name of a new system (default: the slug); ignored for an existing one.
        kind: ``extractive`` or ``abstractive``; required for a new system. Given for an
            existing system it must match (the import refuses another kind).
        description: free text for a new system.
        trained_on: slug of the dataset the system was trained on (optional; cross-dataset
            evaluation reads it). It must name a dataset in Loupe. A new system takes it; for
            an existing system it must be blank or equal the system's own (a system trained on
            another dataset is another system: register it under a new slug).
        user: the uploader; a new version of an existing system needs its owner or an admin
            (a system without an owner, e.g. from a release, needs an admin). None (the
            command line) is not checked.

    Returns:
        A :class:`SystemRecord` for :func:`system_outputs_upload`.

    Raises:
        ApplicationError: a new system without a kind, an unknown ``trained_on`` dataset or
            one that differs from an existing system's (400); someone else's system (403).
    """
    if trained_on and not Dataset.objects.filter(slug=trained_on).exists():
        raise ApplicationError(
            f"trained_on {trained_on!r} is not a dataset in Loupe; give the slug of the dataset "
            "the system was trained on (or leave it blank).",
            extra={"field": "trained_on"},
        )
    existing = System.objects.filter(slug=slug).select_related("owner").first()
    if existing is not None and user is not None and not has_role(user, ADMIN):
        if existing.owner_id != user.pk:
            owner = existing.owner.username if existing.owner else "no one (an admin imported it)"
            raise ApplicationError(
                f"System {slug!r} belongs to {owner}; only its owner or an admin can upload a "
                "new version. Upload under a new system slug instead.",
                extra={"field": "system"},
                status_code=403,
            )
    if existing is not None and trained_on and trained_on != existing.trained_on:
        was = repr(existing.trained_on) if existing.trained_on else "no training dataset"
        raise ApplicationError(
            f"System {slug!r} is registered as trained on {was}, not {trained_on!r}; a system "
            "trained on another dataset is another system: register a new system slug for it "
            "(with the same display name to compare them across datasets).",
            extra={"field": "trained_on"},
        )
    if existing is not None:
        return SystemRecord(
            slug=existing.slug,
            name=existing.name,
            kind=kind or existing.kind,
            description=existing.description,
            trained_on=existing.trained_on,
        )
    if not kind:
        raise ApplicationError(
            f"System {slug!r} is new: say whether it is extractive or abstractive (kind).",
            extra={"field": "kind"},
        )
    return SystemRecord(
        slug=slug, name=name or slug, kind=kind, description=description, trained_on=trained_on
    )
