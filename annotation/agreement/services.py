"""Agreement services (writes): start a span agreement run or reuse one, compute it (a job of the
job kernel: ``SPAN_AGREEMENT``), restart it, fail it."""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Sequence

from django.db import connection, transaction
from django.utils import timezone

from annotation.campaigns.models import Campaign, CampaignKind
from annotation.fams.models import AnnotationSet
from annotation.jobs.kernel import job_kind_register, job_run_inline, job_send_on_commit
from config.exceptions import ApplicationError
from scoring.metrics.agreement import AgreementError
from scoring.metrics.spans import scheme_get

from .compute import span_agreement_compute
from .models import RunSource, RunStatus, SpanAgreementChunk, SpanAgreementRun
from .runs import (
    QUEUED_REUSE,
    Outcome,
    agreement_kind,
    agreement_run_fail,
    agreement_run_restart,
)
from .selectors import (
    annotation_set_repeated_outputs,
    annotation_sets_overlap_count,
    campaign_annotator_count,
    span_agreement_input,
    span_agreement_inputs_digest,
    span_agreement_run_digest,
    span_agreement_run_latest,
)

log = logging.getLogger(__name__)


def _check_min_iou(min_iou: float) -> float:
    if (
        isinstance(min_iou, bool)
        or not isinstance(min_iou, int | float)
        or not math.isfinite(min_iou)
        or not 0 <= min_iou <= 1
    ):
        raise ApplicationError(f"min_iou must be a number from 0 to 1; got {min_iou!r}.")
    return float(min_iou)


def _check_campaign(campaign: Campaign, submitted_only: bool) -> None:
    if campaign.kind != CampaignKind.POLYTOPE:
        raise ApplicationError(
            f"Campaign {campaign.slug!r} is a {campaign.get_kind_display()} campaign; span "
            "agreement needs a PolyTope campaign."
        )
    found = campaign_annotator_count(campaign=campaign, submitted_only=submitted_only)
    which = "submitted " if submitted_only else ""
    if found["annotators"] < 2:
        raise ApplicationError(
            f"Campaign {campaign.slug!r} has {found['annotators']} annotator(s) with "
            f"{which}annotated items; agreement needs at least two."
        )
    if found["overlapping_items"] == 0:
        raise ApplicationError(
            f"No item of campaign {campaign.slug!r} is {which}annotated by two annotators yet, "
            "so there is nothing to compare."
        )


def _check_sets(sets: Sequence[AnnotationSet], ids: Sequence[int]) -> None:
    if len(set(ids)) != len(ids):
        raise ApplicationError(f"Each annotation set may be given once; got {list(ids)}.")
    found = {s.pk for s in sets}
    unknown = [pk for pk in ids if pk not in found]
    if unknown:
        raise ApplicationError(f"Unknown annotation sets: {unknown}.")
    if len(sets) < 2:
        raise ApplicationError(
            f"Agreement needs at least two annotation sets (each set is one annotator); "
            f"got {len(sets)}."
        )
    fams = [s.slug for s in sets if s.is_fam]
    if fams:
        raise ApplicationError(
            f"Annotation sets {fams} hold FAMs, not error spans; span agreement compares sets "
            "of a span scheme."
        )
    datasets = sorted({s.dataset.slug for s in sets})
    if len(datasets) > 1:
        raise ApplicationError(
            f"The annotation sets belong to different datasets ({', '.join(datasets)}); "
            "agreement compares annotations of the same outputs."
        )
    schemes = sorted({s.scheme for s in sets})
    if len(schemes) > 1:
        by_scheme = {scheme: [s.slug for s in sets if s.scheme == scheme] for scheme in schemes}
        raise ApplicationError(
            f"The annotation sets use different span schemes ({by_scheme}); their types cannot "
            "be compared."
        )
    for annotation_set in sets:
        repeated = annotation_set_repeated_outputs(annotation_set=annotation_set)
        if repeated:
            raise ApplicationError(
                f"Annotation set {annotation_set.slug!r} holds several annotators' rows for "
                f"outputs {repeated}, so it is not one annotator; start the run from its "
                "campaign instead."
            )
    if annotation_sets_overlap_count(annotation_sets=list(sets)) == 0:
        raise ApplicationError(
            "No output is annotated in two of these sets, so there is nothing to compare."
        )


def _lock(key: tuple) -> None:
    """Serialise run creation over one input until the transaction ends (a Postgres advisory
    lock: nothing else is locked). SQLite (the quickstart) has no advisory locks and needs none:
    it lets one transaction write at a time."""
    if connection.vendor != "postgresql":
        return
    number = int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])


def _reusable(
    run: SpanAgreementRun, sets: Sequence[AnnotationSet], force: bool
) -> SpanAgreementRun | None:
    """A run over the same input as the unsaved ``run`` (over ``sets``) that makes it
    pointless, if there is one."""
    runs = SpanAgreementRun.objects.filter(dataset=run.dataset)
    key = (
        run.source,
        run.campaign_id,
        tuple(sorted(s.pk for s in sets)),
        float(run.min_iou),
        bool(run.submitted_only),
    )
    _lock(key)
    queued = span_agreement_run_latest(runs=runs, key=key, status=RunStatus.QUEUED)
    if queued is not None and queued.created_at >= timezone.now() - QUEUED_REUSE:
        return queued
    if force:
        return None
    done = span_agreement_run_latest(runs=runs, key=key, status=RunStatus.SUCCEEDED)
    if done is not None and done.inputs_digest == span_agreement_inputs_digest(
        campaign=run.campaign, annotation_sets=sets, min_iou=run.min_iou,
        submitted_only=run.submitted_only,
    ):  # fmt: skip
        return done
    return None


@transaction.atomic
def span_agreement_run_create(
    *,
    campaign: int | None = None,
    annotation_sets: Sequence[int] | None = None,
    min_iou: float = 0.0,
    submitted_only: bool = False,
    user=None,
    queue: bool = True,
    force: bool = False,
) -> SpanAgreementRun:
    """Check what to compare, and queue a run for a worker once this commits, unless one would
    add nothing.

    Safe to call repeatedly (after every submission, say). Over the same input and options:

    - a queued run (younger than ``QUEUED_REUSE``) is returned as it is: it reads the
      annotations when it runs, so it covers every change made until then;
    - otherwise the newest succeeded run is returned when its ``inputs_digest`` equals the
      digest of the annotations now (unless ``force``): nothing changed since it read them;
    - otherwise a new run is created and queued.

    Concurrent calls over one input are serialised, so a burst queues one run.

    Args:
        campaign: a PolyTope campaign's id (its users are the annotators), or None.
        annotation_sets: ids of two or more span annotation sets of one dataset and scheme,
            each one annotator; or None. Exactly one of ``campaign`` and ``annotation_sets``.
        min_iou: lowest intersection-over-union of a partial match, from 0 to 1.
        submitted_only: for a campaign, count only the items of submitted tasks.
        user: who asked for it.
        queue: send a new run to the workers on commit (False: the caller runs it).
        force: recompute even if the newest succeeded run read the same annotations (a
            queued run is still reused).

    Returns:
        The new queued run, the queued run reused, or the succeeded run that is up to date
        (its status says which: only a reused up-to-date run is ``succeeded``).

    Raises:
        ApplicationError: both or neither source given; an unknown campaign or set; a FAM
            campaign or set; sets of different datasets or schemes; a set holding several
            annotators; fewer than two annotators; no item annotated twice; a bad ``min_iou``.
    """
    if (campaign is None) == (annotation_sets is None):
        raise ApplicationError("Give either a campaign or a list of annotation sets, not both.")
    min_iou = _check_min_iou(min_iou)
    if campaign is not None:
        row = Campaign.objects.select_related("dataset", "annotation_set").filter(pk=campaign)
        found = row.first()
        if found is None:
            raise ApplicationError(f"Unknown campaign: {campaign}.")
        _check_campaign(found, submitted_only)
        run = SpanAgreementRun(
            dataset=found.dataset,
            scheme=found.annotation_set.scheme,
            source=RunSource.CAMPAIGN,
            campaign=found,
            min_iou=min_iou,
            submitted_only=submitted_only,
            created_by=user,
        )
        sets: list[AnnotationSet] = []
    else:
        if submitted_only:
            raise ApplicationError("submitted_only applies to campaigns, not annotation sets.")
        ids = list(annotation_sets or [])
        sets = list(AnnotationSet.objects.select_related("dataset").filter(pk__in=ids))
        _check_sets(sets, ids)
        run = SpanAgreementRun(
            dataset=sets[0].dataset,
            scheme=sets[0].scheme,
            source=RunSource.ANNOTATION_SETS,
            min_iou=min_iou,
            created_by=user,
        )
    run.full_clean()
    found = _reusable(run, sets, force)
    if found is not None:
        return found
    run.save()
    run.annotation_sets.set(sets)
    if queue:
        job_send_on_commit(SPAN_AGREEMENT, run.pk)
    return run


def span_agreement_on_task_submitted(*, task, campaign: Campaign, **_) -> None:
    """Queue a PolyTope campaign's span agreement after a submission (receiver of
    ``annotation.campaigns.signals.task_submitted``).

    Runs inside the submission's transaction: the run row commits with it and its task is
    queued on commit. A queued run, or a succeeded one over unchanged annotations, is reused
    (see :func:`span_agreement_run_create`), so a burst of submissions queues one run. A
    campaign without two annotators on one submitted item yet has nothing to compare: no run.

    The run counts submitted work only (``submitted_only=True``), as a FAM campaign's runs do:
    drafts still being edited do not move the campaign's figures. Runs asked for on demand
    (the span agreement API) keep the caller's ``submitted_only``.

    Args:
        task: the submitted task.
        campaign: its campaign (FAM campaigns are left to the FAM agreement).
    """
    if campaign.kind != CampaignKind.POLYTOPE:
        return
    try:
        span_agreement_run_create(campaign=campaign.pk, submitted_only=True)
    except ApplicationError as error:
        log.debug("no span agreement run after task %s: %s", task.pk, error.message)


def span_agreement_run_fail(
    *, run: SpanAgreementRun, error: str, inputs_digest: str | None = None
) -> SpanAgreementRun:
    """Record that a run failed and why (its result is cleared).

    Args:
        run: the run.
        error: the message shown by the API.
        inputs_digest: the digest of the input it failed on, if it was read (else kept).

    Returns:
        The failed run.
    """
    return agreement_run_fail(kind=SPAN_AGREEMENT, run=run, error=error, digest=inputs_digest)


def _compute(run: SpanAgreementRun) -> Outcome:
    """The span agreement kind's computation: read the run's annotations, compute every measure.

    Input that no longer allows agreement (annotations deleted since the run was created, say)
    is an outcome with the reason, not an exception.
    """
    # The digest is read before the annotations: a save in between makes the run look stale
    # (and a later request recompute), never a newer digest on older figures.
    digest = span_agreement_run_digest(run=run)
    data = span_agreement_input(run=run)
    if not data.items:
        return Outcome(
            error="No output is annotated by two annotators, so there is nothing to compare.",
            digest=digest,
        )
    try:
        result = span_agreement_compute(
            scheme=scheme_get(run.scheme),
            items=data.items,
            annotators=[a["key"] for a in data.annotators],
            min_iou=run.min_iou,
        )
    except (AgreementError, ValueError) as error:
        log.warning("span agreement run %s failed: %s", run.pk, error)
        return Outcome(error=f"{type(error).__name__}: {error}", digest=digest)
    result["annotators"] = data.annotators
    result["counts"]["items_with_one_annotator"] = data.single
    result["counts"]["rows_not_annotated"] = data.not_annotated
    if data.other_texts:
        result["counts"]["items_annotated_on_different_texts"] = data.other_texts
    return Outcome(result=result, digest=digest)


SPAN_AGREEMENT = job_kind_register(
    agreement_kind(
        name="span_agreement",
        run_model=SpanAgreementRun,
        chunk_model=SpanAgreementChunk,
        compute=_compute,
        related=("dataset", "campaign"),
    )
)


def span_agreement_run_restart(*, run: SpanAgreementRun, queue: bool = True) -> SpanAgreementRun:
    """Compute a finished run again from the annotations as they are now: it is queued again
    (its figures stay until the new ones replace them) and, with ``queue``, sent to the workers
    on commit. An unfinished run is left to the computation under way.

    Args:
        run: the run.
        queue: send it to the workers on commit (False: the caller runs it).

    Returns:
        The run, queued (or unfinished as it was).
    """
    return agreement_run_restart(kind=SPAN_AGREEMENT, run=run, queue=queue)


def span_agreement_run_compute(*, run: SpanAgreementRun) -> SpanAgreementRun:
    """Compute a run in this process through the job kernel (a finished one is restarted
    first, so it is recomputed from the current annotations and its result overwritten).

    Input that no longer allows agreement fails the run with the reason instead of raising.

    Args:
        run: the run.

    Returns:
        The run, succeeded with its ``result`` or failed with its ``error``.

    Raises:
        Exception: what the computation raised unexpectedly (the run is failed with it first).
    """
    run = span_agreement_run_restart(run=run, queue=False)
    return job_run_inline(kind=SPAN_AGREEMENT, job=run)
