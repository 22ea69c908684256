"""Celery tasks: compute one span agreement run, or one FAM campaign agreement run (by id)."""

from __future__ import annotations

from celery import shared_task

from .fam_tasks import fam_agreement_run_task
from .models import SpanAgreementRun
from .runs import LONG_JOB, agreement_run_task_body

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

    return agreement_run_task_body(
        model=SpanAgreementRun,
        run_id=run_id,
        compute=span_agreement_run_compute,
        fail=span_agreement_run_fail,
    )
