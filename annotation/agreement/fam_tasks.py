"""Celery task: compute one FAM campaign agreement run (re-fetched by id; idempotent)."""

from __future__ import annotations

from celery import shared_task

from .models import FamAgreementRun
from .runs import LONG_JOB, agreement_run_task_body


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

    return agreement_run_task_body(
        model=FamAgreementRun,
        run_id=run_id,
        compute=fam_agreement_run_compute,
        fail=fam_agreement_run_fail,
        related=("campaign",),
    )
