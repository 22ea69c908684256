"""Release services (writes): number a new release, and build its files (the Celery job's work).

A build writes every member into a hidden staging folder beside the releases, hashing as it
writes, then the manifest, the archive and the item index, and only then renames the folder to
``<dataset>/<version>/`` in one step: a reader never sees half a release, and a worker killed
mid-job leaves only a hidden folder that the next attempt removes. A succeeded release is never
rebuilt or changed; a new export is a new version.

On PostgreSQL every read of a build shares one REPEATABLE READ, READ ONLY snapshot, so saves
made while it runs cannot make its members disagree (the progress goes through a second
connection, outside the snapshot, so that readers see it while the build runs).
"""

from __future__ import annotations

import json
import logging
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Max

from annotation.corpus.importers.parsers.loupe_release import layout
from annotation.corpus.models import Dataset
from annotation.jobs.kernel import (
    JobKind,
    job_fail,
    job_kind_register,
    job_run_inline,
    job_send_on_commit,
)
from config.exceptions import ApplicationError

from . import members as m
from .archive import MemberWriter, file_sha256, write_archive
from .datasheet import datasheet_text
from .diff import INDEX, ItemIndex, items_diff
from .models import ArchiveFormat, Release, ReleaseBuild
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
        job_send_on_commit(RELEASE, release.pk)
    return release


def release_fail(*, release_id: int, error: str) -> None:
    """Record why a build failed (a succeeded release is left alone).

    Args:
        release_id: the release's primary key.
        error: the reason, shown to the admin.
    """
    release = Release.objects.filter(pk=release_id).first()
    if release is not None:
        job_fail(kind=RELEASE, job=release, error=error)


class _ProgressWriter:
    """Writes a build's progress: with the ORM, or, while the build reads in a snapshot, on a
    second connection in autocommit (so readers see it at once and the snapshot stays read
    only)."""

    def __init__(self, release_id: int, *, side: bool) -> None:
        self.release_id = release_id
        self.side = connections.create_connection(DEFAULT_DB_ALIAS) if side else None

    def update(self, **values) -> None:
        if self.side is None:
            Release.objects.filter(pk=self.release_id).update(**values)
            return
        table = self.side.ops.quote_name(Release._meta.db_table)
        columns = ", ".join(f"{self.side.ops.quote_name(name)} = %s" for name in values)
        with self.side.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET {columns} WHERE id = %s",  # noqa: S608 (names are ours)
                [*values.values(), self.release_id],
            )

    def close(self) -> None:
        if self.side is not None:
            self.side.close()


def _progress(writer: _ProgressWriter, total: int):
    def report(stage: str, done: int) -> None:
        writer.update(stage=stage, progress_done=min(done, total))

    return report


@contextmanager
def _snapshot() -> Iterator[bool]:
    """One REPEATABLE READ, READ ONLY transaction for every read of a build, on PostgreSQL
    outside a transaction (as ``annotation.agreement.fam_selectors`` takes its snapshot).

    Yields:
        Whether a snapshot was taken (then progress must go through another connection).
    """
    if connection.in_atomic_block or connection.vendor != "postgresql":
        yield False
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield True


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


def _plan(release: Release) -> None:
    """The release kind's plan: one chunk, the build."""
    ReleaseBuild.objects.create(release=release, index=0)


def _build(chunk: ReleaseBuild) -> int:
    """The release kind's chunk: write the files in a staging folder, then publish them.

    A worker killed mid-build leaves a staging folder; the next attempt removes it and starts
    over. A failure removes the staging folder and is raised (the kernel fails the release).
    """
    release = Release.objects.select_related("dataset").get(pk=chunk.release_id)
    final = release_dir(release)
    Release.objects.filter(pk=release.pk).update(stage="planning")
    work = None
    try:
        work = _staging_folder(release)
        result = _write(release, work / layout.archive_root(release.dataset.slug, release.version))
        _publish(work, final)
    except Exception:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        raise
    Release.objects.filter(pk=release.pk).update(stage="done", **result)
    return 1


RELEASE = job_kind_register(
    JobKind(
        name="release",
        job_model=Release,
        chunk_model=ReleaseBuild,
        plan=_plan,
        chunk=_build,
        describe=lambda chunk: "the build",
        label="build",
        soft_time_limit=1800,
        max_attempts=MAX_ATTEMPTS,
    )
)


def release_build(*, release: Release) -> Release:
    """Build the release's files in this process and mark it succeeded (a succeeded one is
    kept): ``manage.py export_release`` and the tests.

    Args:
        release: a queued or running (its worker died) release.

    Returns:
        The release, refreshed.

    Raises:
        Exception: whatever stopped the build, after the release was marked failed and its
            staging folder removed.
    """
    return job_run_inline(kind=RELEASE, job=release)


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
    staging.mkdir()
    with _snapshot() as snapshot:
        progress = _ProgressWriter(release.pk, side=snapshot)
        try:
            export, manifest, diff, total = _read_and_write(release, staging, progress)
        finally:
            progress.close()
    export.report = _progress(_ProgressWriter(release.pk, side=False), total)
    return _archive(release, staging, export, manifest, diff, total)


def _read_and_write(release: Release, staging: Path, progress: _ProgressWriter):
    """Every read of a build (in the caller's snapshot): the members, datasheet and manifest,
    and the diff against the previous release."""
    export = m.Export(
        dataset=release.dataset,
        include_annotators=release.include_annotators,
        staging=staging,
        report=lambda stage, done: None,
    )
    total = m.plan(export)
    export.report = _progress(progress, total)
    progress.update(progress_total=total, progress_done=0)
    for step in STEPS:
        step(export)
    sheet = export.writer(layout.DATASHEET, "datasheet")
    sheet.write_text(datasheet_text(export))
    export.finish(sheet, jsonl=False)
    manifest = _manifest(release, export)
    return export, manifest, _diff(release, export.index), total


def _archive(release: Release, staging: Path, export, manifest: dict, diff, total: int) -> dict:
    """The manifest file, the archive and the item index, in ``staging``'s parent."""
    work = staging.parent
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
    shutil.rmtree(staging)
    size, sha256 = file_sha256(archive)
    return {
        "progress_done": total,
        "size": size,
        "sha256": sha256,
        "manifest": manifest,
        "diff": diff,
    }
