"""Release selectors (reads): a dataset's releases, where their files are, and who may read them."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError

from .models import Release, ReleaseStatus


def releases_root() -> Path:
    """The folder holding every release (``settings.LOUPE_RELEASES_DIR``)."""
    return Path(settings.LOUPE_RELEASES_DIR)


def release_dir(release: Release) -> Path:
    """Where a finished release's files are: ``<releases>/<dataset>/<version>/``.

    Args:
        release: the release.

    Returns:
        The folder (it exists only once the release succeeded).
    """
    return releases_root() / release.dataset.slug / str(release.version)


def release_archive_path(release: Release) -> Path:
    """The release's archive file.

    Args:
        release: the release.

    Returns:
        ``<releases>/<dataset>/<version>/<dataset>-v<version>.<zip|tar.gz>``.
    """
    return release_dir(release) / release.archive_name


def release_read_allowed(*, user, dataset: Dataset) -> bool:
    """Whether ``user`` may list and download ``dataset``'s releases.

    Args:
        user: the requesting user (possibly anonymous).
        dataset: the dataset.

    Returns:
        True for anyone when the dataset is public; else for admins and researchers.
    """
    return dataset.public or has_role(user, ADMIN, RESEARCHER)


def release_list(*, dataset: Dataset) -> QuerySet[Release]:
    """A dataset's releases, newest version first.

    Args:
        dataset: the dataset.

    Returns:
        The releases with their dataset and creator loaded.
    """
    return (
        Release.objects.filter(dataset=dataset)
        .select_related("dataset", "created_by")
        .order_by("-version")
    )


def release_get(*, dataset: Dataset, version: int) -> Release:
    """One release of a dataset.

    Args:
        dataset: the dataset.
        version: its version number.

    Returns:
        The release.

    Raises:
        Release.DoesNotExist: no such version.
    """
    return release_list(dataset=dataset).get(version=version)


def release_previous(*, release: Release) -> Release | None:
    """The latest succeeded release of the same dataset before ``release``, if any.

    Args:
        release: the release.

    Returns:
        The earlier release the diff is computed against, or None.
    """
    return (
        Release.objects.filter(
            dataset_id=release.dataset_id,
            version__lt=release.version,
            status=ReleaseStatus.SUCCEEDED,
        )
        .select_related("dataset")
        .order_by("-version")
        .first()
    )


# What a reader who is neither admin nor researcher (of a public dataset) sees of a failure.
GENERIC_ERROR = "the export failed"


def release_as_dict(release: Release, *, user=None) -> dict:
    """The JSON form of a release (the API's and the command's).

    Admins and researchers see everything. Anyone else (a public dataset's anonymous reader,
    an annotator) sees no username (``created_by`` is null) and, for a failed build, only
    ``GENERIC_ERROR`` instead of the recorded reason (which can name paths and internals).

    Args:
        release: the release, with its dataset and creator loaded.
        user: who reads it (None or anonymous: the public form).

    Returns:
        ``version, status, progress {done, total, stage}, archive, include_annotators, notes,
        created_at, created_by, finished_at, size, sha256, manifest, diff, download_url,
        error``.
    """
    ready = release.status == ReleaseStatus.SUCCEEDED
    staff = user is not None and has_role(user, ADMIN, RESEARCHER)
    error = release.error
    if not staff and error:
        error = GENERIC_ERROR
    return {
        "version": release.version,
        "status": release.status,
        "progress": {
            "done": release.progress_done,
            "total": release.progress_total,
            "stage": release.stage,
        },
        "archive": release.archive,
        "include_annotators": release.include_annotators,
        "notes": release.notes,
        "created_at": release.created_at.isoformat() if release.created_at else None,
        "created_by": (release.created_by.username if staff and release.created_by else None),
        "finished_at": release.finished_at.isoformat() if release.finished_at else None,
        "size": release.size,
        "sha256": release.sha256 or None,
        "manifest": release.manifest,
        "diff": release.diff,
        "download_url": (
            f"/api/datasets/{release.dataset.slug}/releases/{release.version}/download/"
            if ready
            else None
        ),
        "error": error,
    }


def release_archive_get(*, release: Release) -> Path:
    """The archive of a succeeded release, for a download.

    Args:
        release: the release.

    Returns:
        Its path.

    Raises:
        ApplicationError: the release is not ready yet (409) or its file is gone (410).
    """
    if release.status != ReleaseStatus.SUCCEEDED:
        raise ApplicationError(
            f"release {release.version} is {release.status}; it can be downloaded once it "
            "succeeded",
            extra={"status": release.status},
            status_code=409,
        )
    path = release_archive_path(release)
    if not path.is_file():
        raise ApplicationError(
            f"the file of release {release.version} is missing from the server",
            status_code=410,
        )
    return path
