"""Celery task: compute one FAM campaign agreement run (re-fetched by id; idempotent)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from config.celery import long_job

from .models import FamAgreementRun

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=600)


@shared_task(name="loupe.agreement.fam_run", **LONG_JOB)
def fam_agreement_run_task(run_id: int) -> str:
    """Compute a FAM agreement run and store its result, or why it failed.

    Idempotent: a finished run is not computed again; a run left running by a killed worker is
    computed again from the campaign as it is now. An unexpected error is recorded on the run
    and raised again for the worker's log.

    Args:
        run_id: the run's primary key (re-fetched; a deleted run is a no-op).

    Returns:
        The run's final status (``"missing"`` for a deleted run).
    """
    from .fam_services import fam_agreement_run_compute, fam_agreement_run_fail

    run = FamAgreementRun.objects.select_related("campaign").filter(pk=run_id).first()
    if run is None:
        log.warning("FAM agreement run %s no longer exists; nothing to compute", run_id)
        return "missing"
    try:
        return fam_agreement_run_compute(run=run).status
    except SoftTimeLimitExceeded:
        fam_agreement_run_fail(run=run, error="stopped: the computation took too long")
        raise
    except Exception as error:
        fam_agreement_run_fail(run=run, error=f"{type(error).__name__}: {error}")
        raise
