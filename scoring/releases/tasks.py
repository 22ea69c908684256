"""Celery task: build one release (a long job, acknowledged late, idempotent)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db.models import F

from config.celery import long_job

from .models import Release, ReleaseStatus

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=1800)


@shared_task(name="loupe.releases.build", **LONG_JOB)
def release_build_task(release_id: int) -> str:
    """Build a release's files; a succeeded release is left as it is.

    A worker killed mid-build gets the task again (acknowledged late): the new attempt removes
    the half-written staging folder and starts over. After ``MAX_ATTEMPTS`` starts the release
    is failed instead of being retried for ever.

    Args:
        release_id: the release's primary key (re-fetched).

    Returns:
        The release's status afterwards (``missing`` when it no longer exists).
    """
    from .services import MAX_ATTEMPTS, release_build, release_fail

    release = Release.objects.select_related("dataset").filter(pk=release_id).first()
    if release is None:
        log.warning("release %s no longer exists; nothing to do", release_id)
        return "missing"
    if release.status == ReleaseStatus.SUCCEEDED:
        return release.status
    if release.attempts >= MAX_ATTEMPTS:
        release_fail(
            release_id=release_id,
            error=f"the build was started {release.attempts} times and never finished "
            "(its worker died each time)",
        )
        return ReleaseStatus.FAILED
    Release.objects.filter(pk=release_id).update(attempts=F("attempts") + 1)
    try:
        release = release_build(release=release)
    except Exception:
        log.exception("release %s failed", release_id)
        return ReleaseStatus.FAILED
    return release.status
