"""Release services (writes): number a new release, and build its files (the Celery job's work).

A build writes every member into a hidden staging folder beside the releases, hashing as it
writes, then the manifest, the archive and the item index, and only then renames the folder to
``<dataset>/<version>/`` in one step: a reader never sees half a release, and a worker killed
mid-job leaves only a hidden folder that the next attempt removes. A succeeded release is never
rebuilt or changed; a new export is a new version.
"""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from functools import partial
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.corpus.importers.parsers.loupe_release import layout
from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError

from . import members as m
from .archive import MemberWriter, file_sha256, write_archive
from .datasheet import datasheet_text
from .diff import INDEX, ItemIndex, items_diff
from .models import ArchiveFormat, Release, ReleaseStatus
from .selectors import release_dir, release_previous, releases_root

log = logging.getLogger(__name__)
# A build started this often without finishing (its worker died each time) is failed.
MAX_ATTEMPTS = 3
STEPS = (
    m.write_documents,
    m.write_systems,
    m.write_outputs,
    m.write_sets,
    m.write_fams,
    m.write_spans,
    m.write_workbooks,
    m.write_scores,
    m.write_far,
    m.write_agreement,
)


def loupe_version() -> str:
    """The installed Loupe's version (``pyproject.toml``), or ``unknown``."""
    try:
        return package_version("loupe")
    except PackageNotFoundError:
        return "unknown"


@transaction.atomic
def release_create(
    *,
    dataset: Dataset,
    archive: str = ArchiveFormat.ZIP,
    include_annotators: bool = False,
    notes: str = "",
    user=None,
    queue: bool = True,
) -> Release:
    """Number the dataset's next release and queue its build (on commit).

    Args:
        dataset: the dataset to release.
        archive: ``zip`` or ``tar.gz``.
        include_annotators: also release each annotator's FAMs and spans under pseudonyms.
        notes: free text shown with the release and written into its manifest.
        user: who asked for it.
        queue: send the build to the workers on commit (False: the caller builds it, as
            ``manage.py export_release`` does).

    Returns:
        The queued :class:`Release` (version = the previous highest + 1).

    Raises:
        ApplicationError: an unknown archive format.
    """
    if archive not in ArchiveFormat.values:
        raise ApplicationError(
            f"archive must be one of {', '.join(ArchiveFormat.values)}, not {archive!r}",
            extra={"field": "archive"},
        )
    # One number per release, even when two admins ask at once: the dataset row is the lock.
    Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
    latest = Release.objects.filter(dataset=dataset).aggregate(top=Max("version"))["top"] or 0
    release = Release(
        dataset=dataset,
        version=latest + 1,
        archive=archive,
        include_annotators=include_annotators,
        notes=notes,
        created_by=user,
    )
    release.full_clean()
    release.save()
    if queue:
        transaction.on_commit(partial(_send, release.pk))
    return release


def _send(release_id: int) -> None:
    """Queue the build; a broker that cannot be reached fails the release, not the request."""
    from .tasks import release_build_task

    try:
        release_build_task.delay(release_id)
    except Exception as error:  # kombu raises several kinds of connection errors
        log.exception("could not queue release %s", release_id)
        release_fail(
            release_id=release_id,
            error=f"could not reach the task broker: {type(error).__name__}: {error}",
        )


def release_fail(*, release_id: int, error: str) -> None:
    """Record why a build failed (a succeeded release is left alone).

    Args:
        release_id: the release's primary key.
        error: the reason, shown to the admin.
    """
    Release.objects.filter(pk=release_id).exclude(status=ReleaseStatus.SUCCEEDED).update(
        status=ReleaseStatus.FAILED, error=error[:5000], finished_at=timezone.now()
    )


def _progress(release_id: int, total: int):
    def report(stage: str, done: int) -> None:
        Release.objects.filter(pk=release_id).update(stage=stage, progress_done=min(done, total))

    return report


def _manifest(release: Release, export: m.Export) -> dict:
    dataset = release.dataset
    previous = release_previous(release=release)
    return {
        "format": layout.FORMAT,
        "format_version": layout.FORMAT_VERSION,
        "loupe_version": loupe_version(),
        "dataset": {
            "slug": dataset.slug,
            "name": dataset.name,
            "description": dataset.description,
            "source": dataset.source,
            "license": dataset.license,
        },
        "version": release.version,
        "previous_version": previous.version if previous else None,
        "created_at": release.created_at.replace(microsecond=0).isoformat(),
        "notes": release.notes,
        "archive": release.archive,
        "include_annotators": release.include_annotators,
        "counts": {**export.counts, "annotators": len(export.pseudonyms)},
        "files": [member.as_manifest() for member in sorted(export.members, key=_path)],
    }


def _path(member) -> str:
    return member.path


def _diff(release: Release, index: ItemIndex) -> dict | None:
    previous = release_previous(release=release)
    if previous is None:
        return None
    path = release_dir(previous) / INDEX
    if not path.is_file():
        return {"previous_version": previous.version, "error": "its item index is missing"}
    return items_diff(ItemIndex.load(path), index, version=previous.version)


def _publish(staging_root: Path, final: Path) -> None:
    """Make the built folder the release in one rename (a leftover of a crashed run goes)."""
    old = None
    if final.exists():
        old = final.with_name(f".old-{final.name}-{uuid.uuid4().hex[:8]}")
        final.rename(old)
    staging_root.rename(final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def release_build(*, release: Release) -> Release:
    """Write the release's files and mark it succeeded (idempotent: a succeeded one is kept).

    Args:
        release: a queued, running (its worker died) or failed release.

    Returns:
        The release, refreshed.

    Raises:
        Exception: whatever stopped the build, after the release was marked failed and its
            staging folder removed.
    """
    final = release_dir(release)
    if release.status == ReleaseStatus.SUCCEEDED and final.is_dir():
        return release
    Release.objects.filter(pk=release.pk).update(
        status=ReleaseStatus.RUNNING, started_at=timezone.now(), error="", stage="planning"
    )
    work = None
    try:
        work = _staging_folder(release)
        result = _write(release, work / layout.archive_root(release.dataset.slug, release.version))
        _publish(work, final)
    except Exception as error:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        release_fail(release_id=release.pk, error=f"{type(error).__name__}: {error}")
        raise
    Release.objects.filter(pk=release.pk).update(
        status=ReleaseStatus.SUCCEEDED, stage="done", finished_at=timezone.now(), **result
    )
    release.refresh_from_db()
    return release


def _staging_folder(release: Release) -> Path:
    """A new hidden folder beside the dataset's releases; an earlier attempt's goes first."""
    parent = releases_root() / release.dataset.slug
    parent.mkdir(parents=True, exist_ok=True)
    for leftover in parent.glob(f".tmp-{release.version}-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    work = parent / f".tmp-{release.version}-{uuid.uuid4().hex[:8]}"
    work.mkdir()
    return work


def _write(release: Release, staging: Path) -> dict:
    """Every member, the manifest, the archive and the item index, in ``staging``'s parent.

    Returns:
        The release row's new values: progress, size, sha256, manifest and diff.
    """
    work = staging.parent
    staging.mkdir()
    export = m.Export(
        dataset=release.dataset,
        include_annotators=release.include_annotators,
        staging=staging,
        report=lambda stage, done: None,
    )
    total = m.plan(export)
    export.report = _progress(release.pk, total)
    Release.objects.filter(pk=release.pk).update(progress_total=total, progress_done=0)
    for step in STEPS:
        step(export)
    sheet = export.writer(layout.DATASHEET, "datasheet")
    sheet.write_text(datasheet_text(export))
    export.finish(sheet, jsonl=False)
    manifest = _manifest(release, export)
    writer = MemberWriter(staging, layout.MANIFEST)
    writer.write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    writer.close()
    export.report("archive", export.done)
    archive = work / release.archive_name
    write_archive(
        staging=staging,
        names=[layout.MANIFEST, *(entry["path"] for entry in manifest["files"])],
        target=archive,
        archive=release.archive,
        root=staging.name,
    )
    shutil.copyfile(staging / layout.MANIFEST, work / layout.MANIFEST)
    export.index.save(work / INDEX)
    diff = _diff(release, export.index)
    shutil.rmtree(staging)
    size, sha256 = file_sha256(archive)
    return {
        "progress_done": total,
        "size": size,
        "sha256": sha256,
        "manifest": manifest,
        "diff": diff,
    }
