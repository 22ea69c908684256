"""Celery tasks: compute one span agreement run, or one FAM campaign agreement run (by id)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from config.celery import long_job

from .fam_tasks import fam_agreement_run_task
from .models import SpanAgreementRun

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=600)

__all__ = ["fam_agreement_run_task", "span_agreement_run_task"]


@shared_task(name="loupe.agreement.span_run", **LONG_JOB)
def span_agreement_run_task(run_id: int) -> str:
    """Compute a span agreement run and store its result or why it failed.

    Idempotent: a redelivered task recomputes from the current annotations and overwrites the
    result. An unexpected error is recorded on the run and raised again for the worker's log.

    Args:
        run_id: the run's primary key (re-fetched; a deleted run is a no-op).

    Returns:
        The run's final status (``"missing"`` for a deleted run).
    """
    from .services import span_agreement_run_compute, span_agreement_run_fail

    run = SpanAgreementRun.objects.filter(pk=run_id).first()
    if run is None:
        log.warning("span agreement run %s no longer exists; nothing to compute", run_id)
        return "missing"
    try:
        return span_agreement_run_compute(run=run).status
    except SoftTimeLimitExceeded:
        span_agreement_run_fail(run=run, error="stopped: the computation took too long")
        raise
    except Exception as error:
        span_agreement_run_fail(run=run, error=f"{type(error).__name__}: {error}")
        raise
