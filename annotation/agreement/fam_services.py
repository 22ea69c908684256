"""FAM agreement services (writes): queue a campaign's run, compute it, record its failure.

A campaign's agreement is a job of the job kernel (``FAM_AGREEMENT``, one chunk), computed by a
Celery worker on demand (the API) and after each
submission (``on_task_submitted``, connected in ``AgreementConfig.ready()``). A campaign has at
most one queued run; the waiting run reads the campaign when it starts, so it covers every
submission made while it waited.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.campaigns.models import Campaign, CampaignKind
from annotation.jobs.kernel import job_kind_register, job_run_inline, job_send_on_commit
from config.exceptions import ApplicationError
from config.gc import cyclic_gc_paused as _cyclic_gc_paused
from scoring.metrics.agreement import AgreementError

from .fam_compute import DEFAULT_OPTIONS, fam_agreement_compute
from .fam_selectors import fam_agreement_digest, fam_agreement_input, fam_agreement_run_latest
from .models import FamAgreementChunk, FamAgreementRun, FamRunTrigger, RunStatus
from .runs import QUEUED_REUSE, Outcome, agreement_kind, agreement_run_fail

log = logging.getLogger(__name__)

#: Why a queued run older than ``QUEUED_REUSE`` was given up (see fam_agreement_run_queue).
NEVER_STARTED = "never started: the worker did not receive it"

NOTHING_TO_COMPARE = (
    "No document has submitted FAMs from two annotators yet, so there is nothing to compare."
)


def _check_fam(campaign: Campaign) -> None:
    if campaign.kind != CampaignKind.FAM:
        raise ApplicationError(
            f"Campaign {campaign.slug!r} is a {campaign.get_kind_display()} campaign; FAM "
            "agreement needs a FAM campaign."
        )


@transaction.atomic
def fam_agreement_run_queue(
    *, campaign: Campaign, user=None, trigger: str = FamRunTrigger.REQUEST
) -> tuple[FamAgreementRun, bool]:
    """Make sure a run of the campaign waits for a worker; queue a new one only if none does.

    A run queued longer than ``QUEUED_REUSE`` ago is presumed lost (its task never reached a
    worker): it is marked failed (``NEVER_STARTED``) and a new one is queued, so a lost
    message cannot leave the campaign's agreement stuck. Should the old task arrive after
    all, it finds its run finished and does nothing.

    The waiting run is locked until this transaction ends, so a worker cannot start it (and
    read the campaign) before the caller's writes, a submission say, are committed. A new run's
    task goes to the workers when the transaction commits.

    Args:
        campaign: a FAM campaign.
        user: who asked (None for a submission).
        trigger: ``request`` or ``submission``.

    Returns:
        ``(run, created)``: the waiting run, and whether this call created it.

    Raises:
        ApplicationError: not a FAM campaign.
    """
    _check_fam(campaign)
    for _ in range(3):
        waiting = (
            FamAgreementRun.objects.select_for_update()
            .filter(campaign=campaign, status=RunStatus.QUEUED)
            .first()
        )
        if waiting is not None:
            if waiting.created_at >= timezone.now() - QUEUED_REUSE:
                return waiting, False
            # Its task message was lost (a broker restart, say): free the campaign's queue.
            fam_agreement_run_fail(run=waiting, error=NEVER_STARTED)
        run = FamAgreementRun(
            campaign=campaign, trigger=trigger, created_by=user, options=dict(DEFAULT_OPTIONS)
        )
        # The campaign was just read; the one-queued-run rule is the database's to enforce.
        run.full_clean(exclude=["campaign", "created_by"], validate_constraints=False)
        try:
            with transaction.atomic():
                run.save()
        except IntegrityError:  # another transaction queued one meanwhile: use it
            continue
        # A run failed only because the broker was down is not queued again by the watchdog
        # once this one waits: it would break the one-queued-run rule, and this one covers it.
        FamAgreementRun.objects.filter(
            campaign=campaign, status=RunStatus.FAILED, broker_failed=True
        ).update(broker_failed=False)
        job_send_on_commit(FAM_AGREEMENT, run.pk)
        return run, True
    raise ApplicationError("Could not queue the agreement run; try again.")


def fam_agreement_request(*, campaign: Campaign, user) -> tuple[FamAgreementRun, bool]:
    """Ask for the campaign's agreement: the latest result if nothing changed, else a run.

    Args:
        campaign: a FAM campaign.
        user: who asks.

    Returns:
        ``(run, queued)``: the latest succeeded run when its inputs are the campaign's current
        ones and no newer run exists (``queued`` False); else the waiting run (``queued``
        True), created if needed.

    Raises:
        ApplicationError: not a FAM campaign.
    """
    _check_fam(campaign)
    latest = fam_agreement_run_latest(campaign=campaign)
    if latest is not None and latest.status == RunStatus.SUCCEEDED:
        current = fam_agreement_digest(campaign=campaign, options=latest.options)
        if current == latest.inputs_digest:
            return latest, False
    run, _ = fam_agreement_run_queue(campaign=campaign, user=user, trigger=FamRunTrigger.REQUEST)
    return run, True


def on_task_submitted(*, task, campaign: Campaign, **_) -> None:
    """Queue a FAM campaign's agreement after a submission (one waiting run covers a burst).

    Args:
        task: the submitted task.
        campaign: its campaign (PolyTope campaigns are left to the span agreement).
    """
    if campaign.kind == CampaignKind.FAM:
        fam_agreement_run_queue(campaign=campaign, trigger=FamRunTrigger.SUBMISSION)


def fam_agreement_run_fail(
    *, run: FamAgreementRun, error: str, digest: str = ""
) -> FamAgreementRun:
    """Record that a run failed and why (its result is cleared).

    Args:
        run: the run.
        error: the message the API shows.
        digest: the digest of the inputs it read, if it read them.

    Returns:
        The failed run.
    """
    return agreement_run_fail(kind=FAM_AGREEMENT, run=run, error=error, digest=digest)


def _compute(run: FamAgreementRun) -> Outcome:
    """The FAM agreement kind's computation: read the campaign, compute every figure.

    Input that allows no agreement (no document with two annotators) is an outcome with the
    reason, not an exception.
    """
    with _cyclic_gc_paused():
        data = fam_agreement_input(campaign=run.campaign, options=run.options)
    documents: dict[int, set] = {}
    for row in data.rows:
        documents.setdefault(row.document, set()).add(row.annotator)
    if not any(len(people) >= 2 for people in documents.values()):
        return Outcome(error=NOTHING_TO_COMPARE, digest=data.digest)
    try:
        with _cyclic_gc_paused():
            result = fam_agreement_compute(
                rows=data.rows, events=data.events, gold=data.gold, options=run.options
            )
    except (AgreementError, ValueError) as error:
        log.warning("FAM agreement run %s failed: %s", run.pk, error)
        return Outcome(error=f"{type(error).__name__}: {error}", digest=data.digest)
    return Outcome(result=result, digest=data.digest)


FAM_AGREEMENT = job_kind_register(
    agreement_kind(
        name="fam_agreement",
        run_model=FamAgreementRun,
        chunk_model=FamAgreementChunk,
        compute=_compute,
        related=("campaign",),
    )
)


def fam_agreement_run_compute(*, run: FamAgreementRun) -> FamAgreementRun:
    """Compute a run in this process through the job kernel (management commands, tests).

    Idempotent: a finished run is left as it is; a run interrupted while running (its worker
    killed) is computed again from the campaign as it is now. Input that allows no agreement
    (no document with two annotators) fails the run with the reason.

    Args:
        run: the run.

    Returns:
        The run, succeeded with its ``result`` or failed with its ``error``.

    Raises:
        Exception: what the computation raised unexpectedly (the run is failed with it first).
    """
    return job_run_inline(kind=FAM_AGREEMENT, job=run)
