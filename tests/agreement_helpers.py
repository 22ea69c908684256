"""Test helper: compute an agreement run in this process through the job kernel, as a worker
would (``job_run_inline``), and answer its final status."""

from __future__ import annotations


def span_run_compute(run_id: int) -> str:
    """Compute a span agreement run (a finished one is restarted, so recomputed).

    Args:
        run_id: the run's primary key.

    Returns:
        Its status afterwards (``succeeded``, ``failed``).
    """
    from annotation.agreement.models import SpanAgreementRun
    from annotation.agreement.services import span_agreement_run_compute

    return span_agreement_run_compute(run=SpanAgreementRun.objects.get(pk=run_id)).status


def fam_run_compute(run_id: int) -> str:
    """Compute a FAM agreement run (a finished one is left as it is).

    Args:
        run_id: the run's primary key.

    Returns:
        Its status afterwards (``succeeded``, ``failed``).
    """
    from annotation.agreement.fam_services import fam_agreement_run_compute
    from annotation.agreement.models import FamAgreementRun

    return fam_agreement_run_compute(run=FamAgreementRun.objects.get(pk=run_id)).status
