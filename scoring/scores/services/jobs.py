"""Scoring jobs: create, finish or fail them, and run them in-process for --sync."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from django.db import transaction

from annotation.corpus.models import Dataset
from annotation.jobs.kernel import (
    job_complete,
    job_fail,
    job_plan,
    job_run_inline,
    job_send_on_commit,
)
from annotation.systems.models import OutputVersion
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.leaderboard import POLYTOPE, far_key
from scoring.metrics.rouge import RougeConfig

from ..models import JobStatus, JobTrigger, ScoringJob
from ..selectors import (
    dataset_ks,
    output_version_current_list,
    rouge_config_get,
    scoring_fams_exist,
    scoring_job_pending_list,
    scoring_span_versions,
)
from .chunks import scoring_chunks_create
from .kind import SCORING

log = logging.getLogger(__name__)
MAX_K = 50


def _check_ks(ks: Sequence[int] | None) -> list[int]:
    ks = sorted(set(ks or [DEFAULT_K]))
    bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K]
    if bad:
        from django.core.exceptions import ValidationError

        raise ValidationError({"ks": f"k must be an integer from 1 to {MAX_K}; got {bad}"})
    return ks


@transaction.atomic
def scoring_job_create(
    *,
    dataset: Dataset,
    trigger: str,
    versions: Sequence[OutputVersion] | None = None,
    ks: Sequence[int] | None = None,
    user=None,
    queue: bool = True,
) -> ScoringJob:
    """Create a scoring job and, once the transaction commits, queue it for the workers.

    If the broker cannot be reached when the transaction commits, the caller's data stays
    committed and the job is marked failed with the reason (nothing waits forever for it).

    Args:
        dataset: the dataset whose outputs are scored.
        trigger: why (``upload``, ``fams``, ``spans`` or ``manual``).
        versions: the output versions to score; the dataset's current ones when None.
        ks: FAR cut-offs, each from 1 to 50; default: every k the dataset was scored at, and 3.
        user: who asked for it.
        queue: send it to the workers on commit (False: the caller runs it, e.g. ``--sync``).

    Returns:
        The queued job.

    Raises:
        django.core.exceptions.ValidationError: a bad k or trigger.
    """
    if versions is None:
        versions = output_version_current_list(dataset=dataset)
    if ks is None:
        ks = dataset_ks(dataset=dataset)
    job = ScoringJob(dataset=dataset, trigger=trigger, ks=_check_ks(ks), created_by=user)
    job.full_clean()
    job.save()
    job.versions.set(versions)
    if queue:
        job_send_on_commit(SCORING, job.pk)
    return job


def scoring_job_request_for_spans(*, dataset: Dataset, user=None) -> ScoringJob | None:
    """Queue a rescoring of the span-derived scores after scored span annotations changed.

    One waiting job covers a burst of saves: none is created while a job that will read the
    annotations when it runs (triggered by spans or FAMs, over every current version) is still
    queued.

    Args:
        dataset: the dataset whose released or gold span annotations changed.
        user: who changed them.

    Returns:
        The new job (trigger ``spans``), or None when a queued job will pick the change up.
    """
    if (
        scoring_job_pending_list(dataset=dataset)
        .filter(trigger__in=[JobTrigger.SPANS, JobTrigger.FAMS], status=JobStatus.QUEUED)
        .exists()
    ):
        return None
    return scoring_job_create(dataset=dataset, trigger=JobTrigger.SPANS, user=user)


def scoring_job_request_for_fams(*, dataset: Dataset, user=None) -> ScoringJob | None:
    """Queue a rescoring after gold FAMs changed, unless one is already waiting to start.

    Args:
        dataset: the dataset whose gold FAMs changed.
        user: who changed them.

    Returns:
        The new job, or None when a queued FAM-triggered job will pick the change up.
    """
    if (
        scoring_job_pending_list(dataset=dataset)
        .filter(trigger=JobTrigger.FAMS, status=JobStatus.QUEUED)
        .exists()
    ):
        return None
    return scoring_job_create(dataset=dataset, trigger=JobTrigger.FAMS, user=user)


def scoring_job_plan(*, job: ScoringJob, chunk_size: int | None = None) -> list:
    """Plan the job's chunks (once) and mark it running (the kernel's ``job_plan``).

    Args:
        job: the job.
        chunk_size: outputs per chunk (default ``settings.LOUPE_SCORING_CHUNK``).

    Returns:
        The chunks not done yet, in order.
    """
    kind = SCORING
    if chunk_size is not None:
        kind = replace(SCORING, plan=partial(scoring_chunks_create, chunk_size=chunk_size))
    return job_plan(kind=kind, job=job)


def scoring_job_finish(*, job: ScoringJob) -> bool:
    """Mark the job succeeded if every chunk is done (with its arrays and first leaderboard).

    Args:
        job: the job.

    Returns:
        True when the job is (now) finished; False when chunks are still missing.
    """
    return job_complete(kind=SCORING, job=job)


def scoring_job_fail(*, job: ScoringJob, error: str) -> ScoringJob:
    """Record that a job failed and why.

    Args:
        job: the job.
        error: the error message shown on the pages and the API.

    Returns:
        The failed job.
    """
    return job_fail(kind=SCORING, job=job, error=error)


def scoring_job_run_inline(*, job: ScoringJob) -> ScoringJob:
    """Run a job in this process, chunk by chunk (``manage.py leaderboard --sync``).

    It builds no score arrays and stores no leaderboard: the reader that follows computes
    what it reads.

    Args:
        job: the job (queued, or left running by a worker).

    Returns:
        The finished job.
    """
    return job_run_inline(kind=SCORING, job=job, hooks=False)


def scoring_pending_run_inline(*, dataset: Dataset, ks: Sequence[int] = (DEFAULT_K,)) -> int:
    """Run every unfinished job of ``dataset`` here, plus one for scores still missing at ``ks``.

    Args:
        dataset: the dataset.
        ks: the cut-offs the caller is about to read.

    Returns:
        How many jobs were run.
    """
    jobs = list(scoring_job_pending_list(dataset=dataset))
    for job in jobs:
        scoring_job_run_inline(job=job)
    has_fams = scoring_fams_exist(dataset=dataset)
    annotated = scoring_span_versions(dataset=dataset)
    rouge, _ = rouge_config_get(dataset=dataset)
    missing = [
        v
        for v in output_version_current_list(dataset=dataset)
        if _lacks_scores(v, ks, has_fams, rouge) or _lacks_span_scores(v, annotated)
    ]
    if missing:
        job = scoring_job_create(
            dataset=dataset, trigger=JobTrigger.MANUAL, versions=missing, ks=ks, queue=False
        )
        scoring_job_run_inline(job=job)
        jobs.append(job)
    return len(jobs)


def _lacks_span_scores(version: OutputVersion, annotated: set[int]) -> bool:
    """The version has annotated outputs but no PolyTope score yet."""
    return version.pk in annotated and not version.scores.filter(metrics__has_key=POLYTOPE).exists()


def _lacks_scores(
    version: OutputVersion, ks: Sequence[int], has_fams: bool, rouge: RougeConfig
) -> bool:
    """No ROUGE of the dataset's settings yet, or (extractive, with FAMs in the dataset) no FAR
    at one of ``ks``."""
    if not version.scores.filter(metrics__has_keys=list(rouge.f_keys())).exists():
        return True
    if version.system.kind != "extractive" or not has_fams:
        return False
    return any(not version.scores.filter(metrics__has_key=far_key("far", k)).exists() for k in ks)
