"""Bias selectors (reads): the inputs' digest, the latest run, when a run waits, who may read."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import timedelta

from django.db.models import F, Func, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from annotation.accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.scores.models import JobStatus, ScoringJob
from scoring.scores.selectors import output_version_current_list

from .models import BiasRun, BiasSourceRow, RunStatus


class _Md5(Func):
    function = "MD5"
    output_field = TextField()


def _text_md5(field: str) -> _Md5:
    return _Md5(Cast(F(field), TextField()))


def bias_inputs_digest(*, dataset: Dataset, versions: Sequence[OutputVersion], bins: int) -> str:
    """SHA-256 of everything a bias run reads: the documents' and references' text, the output
    versions and their outputs' text, and the number of position bins.

    The texts are hashed by PostgreSQL (MD5 per row), so only short digests travel.

    Args:
        dataset: the dataset.
        versions: the output versions the run covers.
        bins: the position bins.

    Returns:
        A hex digest; equal digests mean equal inputs.
    """
    digest = hashlib.sha256(f"bins={bins}".encode())
    documents = Document.objects.filter(dataset=dataset).order_by("id")
    for row in documents.values_list("id", _text_md5("sentences")).iterator(chunk_size=5000):
        digest.update(f"|d{row[0]}:{row[1]}".encode())
    references = Reference.objects.filter(document__dataset=dataset).order_by("id")
    for row in references.values_list("id", "document_id", "position", _text_md5("sentences")):
        digest.update(f"|r{row[0]}:{row[1]}:{row[2]}:{row[3]}".encode())
    version_ids = sorted(v.pk for v in versions)
    digest.update(f"|v{version_ids}".encode())
    outputs = SystemOutput.objects.filter(version_id__in=version_ids).order_by("id")
    rows = outputs.values_list("id", "version_id", "document_id", _text_md5("sentences"))
    for row in rows.iterator(chunk_size=5000):
        digest.update(f"|o{row[0]}:{row[1]}:{row[2]}:{row[3]}".encode())
    return digest.hexdigest()


# A queued run waits while its dataset's scoring job is queued or running (its chunks would
# share the workers with the run's), but not longer than this after the run was asked for:
# a scoring job that never finishes must not hold the figures back for ever.
SCORING_YIELD = timedelta(minutes=10)


def bias_run_waits_for_scoring(*, run: BiasRun, now=None) -> bool:
    """Whether a queued run should wait: its dataset has a scoring job not finished yet.

    Args:
        run: the run (only a queued run waits).
        now: the time to judge by (default: now).

    Returns:
        True while a scoring job of the dataset is queued or running and the run was created
        less than :data:`SCORING_YIELD` ago.
    """
    now = now or timezone.now()
    if run.status != RunStatus.QUEUED or now - run.created_at >= SCORING_YIELD:
        return False
    return ScoringJob.objects.filter(
        dataset_id=run.dataset_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    ).exists()


def bias_read_allowed(*, user, dataset: Dataset) -> bool:
    """Whether ``user`` may read a dataset's bias figures: as its leaderboard (researchers and
    admins), and anyone for a public dataset (as its releases).

    Args:
        user: the requesting user (anonymous included).
        dataset: the dataset.

    Returns:
        True when allowed.
    """
    return dataset.public or has_role(user, RESEARCHER, ADMIN)


def bias_run_list(*, dataset: Dataset) -> QuerySet[BiasRun]:
    """A dataset's runs, newest first.

    Args:
        dataset: the dataset.

    Returns:
        The runs.
    """
    return BiasRun.objects.filter(dataset=dataset).order_by("-created_at", "-id")


def bias_run_latest_succeeded(*, dataset: Dataset) -> BiasRun | None:
    """The dataset's newest succeeded run (its rows are the figures shown).

    Args:
        dataset: the dataset.

    Returns:
        The run, or None before any succeeded.
    """
    return bias_run_list(dataset=dataset).filter(status=RunStatus.SUCCEEDED).first()


def bias_rows_list(*, run: BiasRun) -> list[dict]:
    """A run's per-source rows as JSON-ready data (a reused run's rows are its source's).

    Args:
        run: a succeeded run.

    Returns:
        One dict per source, references first: ``source``, ``kind``, ``version`` (number or
        None), ``n_items``, ``n_empty_summaries``, the means and the histogram.
    """
    owner = run.reused_from_id or run.pk
    rows = BiasSourceRow.objects.filter(run_id=owner).select_related("version").order_by("position")
    return [
        {
            "source": row.source,
            "kind": row.kind,
            "version": row.version.number if row.version else None,
            "n_items": row.n_items,
            "n_empty_summaries": row.n_empty_summaries,
            "coverage": row.coverage,
            "density": row.density,
            "compression": row.compression,
            "copy_length": row.copy_length,
            "novel": row.novel,
            "repeated": row.repeated,
            "ngram_counts": row.ngram_counts,
            "fusion": row.fusion,
            "mean_position": row.mean_position,
            "position_histogram": row.position_histogram,
        }
        for row in rows
    ]


def _run_data(run: BiasRun | None) -> dict | None:
    if run is None:
        return None
    return {
        "id": run.pk,
        "status": run.status,
        "trigger": run.trigger,
        "progress": run.progress,
        "chunks_done": run.chunks_done,
        "chunks_total": run.chunks_total,
        "reused_from": run.reused_from_id,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
        "error": run.error,
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
    }


def bias_start_missing(*, dataset: Dataset) -> str:
    """What a bias run of the dataset lacks before it can measure anything ("" when nothing).

    Args:
        dataset: the dataset.

    Returns:
        The reason, saying how to add what is missing: a reference or a system output on a
        document with text.
    """
    with_text = Document.objects.filter(dataset=dataset, n_sentences__gt=0)
    if (
        Reference.objects.filter(document__in=with_text).exists()
        or SystemOutput.objects.filter(document__in=with_text).exists()
    ):
        return ""
    return (
        f"{dataset.slug} has no reference or system output on a document with text: there is "
        "nothing to measure. Import the dataset's documents with their references (admins: "
        "Manage datasets) or upload a system's outputs on the upload page (/upload/), then "
        "compute."
    )


def dataset_bias_get(*, dataset: Dataset, check_stale: bool = True) -> dict:
    """A dataset's bias figures: the latest succeeded run's rows, and the latest run's state.

    Args:
        dataset: the dataset.
        check_stale: compare the figures' digest with the dataset's inputs now (one pass over
            the texts' digests in the database; skipped while a run is queued or running).

    Returns:
        ``{"dataset", "status", "stale", "run", "computed_by", "rows", "meta", "missing"}``:
        ``status`` is the latest run's (``none`` before any), ``run`` its state,
        ``computed_by`` the succeeded run the rows come from, ``stale`` whether the inputs
        changed since, ``missing`` what a run lacks (see :func:`bias_start_missing`).
    """
    latest = bias_run_list(dataset=dataset).first()
    done = bias_run_latest_succeeded(dataset=dataset)
    stale = False
    # While a run waits or runs, the page polls and the new run will answer; no digest then.
    if done is not None and check_stale and latest.finished:
        current = bias_inputs_digest(
            dataset=dataset, versions=output_version_current_list(dataset=dataset), bins=done.bins
        )
        stale = current != done.inputs_digest
    return {
        "dataset": dataset.slug,
        "status": latest.status if latest else "none",
        "stale": stale,
        "run": _run_data(latest),
        "computed_by": _run_data(done),
        "rows": bias_rows_list(run=done) if done else [],
        "meta": done.meta if done else {},
        "missing": bias_start_missing(dataset=dataset),
    }
