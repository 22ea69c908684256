"""Release model: one immutable, numbered export of a dataset, built by a Celery job."""

from django.conf import settings
from django.db import models

from annotation.corpus.models import Dataset
from annotation.jobs.models import ChunkBase, JobBase, JobStatus

ReleaseStatus = JobStatus  # a build's states are a job's


class ArchiveFormat(models.TextChoices):
    ZIP = "zip", "zip"
    TAR_GZ = "tar.gz", "tar.gz"


class Release(JobBase):
    """Version ``version`` (1, 2, ...) of a dataset's release.

    A release never changes once it succeeded: a new export is a new version. Its files live in
    ``LOUPE_RELEASES_DIR/<dataset>/<version>/``, which appears (by an atomic rename) only when
    complete. ``progress_done``/``progress_total`` count the rows written and ``stage`` names
    the member being written, so pages can poll one row. ``manifest`` is the release's
    ``manifest.json``; ``diff`` counts what was added, changed and removed since the previous
    succeeded version (None for the first).
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="releases")
    version = models.PositiveIntegerField()
    archive = models.CharField(max_length=8, choices=ArchiveFormat.choices)
    include_annotators = models.BooleanField(
        default=False, help_text="Also each annotator's FAMs and spans, under pseudonyms."
    )
    notes = models.TextField(blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    stage = models.CharField(max_length=40, blank=True)
    size = models.PositiveBigIntegerField(null=True, blank=True, help_text="Archive bytes.")
    sha256 = models.CharField(max_length=64, blank=True, help_text="The archive's SHA-256.")
    manifest = models.JSONField(null=True, blank=True)
    diff = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["dataset", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "version"], name="release_version_unique_per_dataset"
            ),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="release_version_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=ReleaseStatus.values), name="release_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(archive__in=ArchiveFormat.values), name="release_archive_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(progress_done__lte=models.F("progress_total")),
                name="release_progress_done_le_total",
            ),
        ]

    @property
    def attempts(self) -> int:
        """How many times the build started (its one chunk's attempts)."""
        return sum(self.chunks.values_list("attempts", flat=True))

    def __str__(self) -> str:
        return f"{self.dataset_id} release v{self.version} ({self.status})"

    @property
    def archive_name(self) -> str:
        """The archive's file name: ``<dataset>-v<version>.zip`` (or ``.tar.gz``)."""
        return f"{self.dataset.slug}-v{self.version}.{self.archive}"


class ReleaseBuild(ChunkBase):
    """The job kernel's one chunk of a release: the build itself (its attempts and heartbeat)."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="chunks")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["release", "index"], name="release_build_index_unique")
        ]

    def __str__(self) -> str:
        return f"build of release {self.release_id}"
