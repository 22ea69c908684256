"""Agreement selectors (reads): runs, their inputs' digest, the annotations a run compares."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from annotation.campaigns.models import Campaign, Task, TaskStatus
from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation, output_texts
from annotation.systems.models import SystemOutput

from .compute import RESULT_FORMAT, AgreementItem
from .fam_selectors import dataset_agreement_summary  # noqa: F401 (releases read it here)
from .models import RunSource, SpanAgreementRun


def span_agreement_run_get(*, run_id: int) -> SpanAgreementRun:
    """One agreement run, with its dataset and campaign.

    Args:
        run_id: its primary key.

    Returns:
        The run.

    Raises:
        SpanAgreementRun.DoesNotExist: no such run.
    """
    return SpanAgreementRun.objects.select_related("dataset", "campaign").get(pk=run_id)


def span_agreement_run_list(*, dataset=None) -> QuerySet[SpanAgreementRun]:
    """Agreement runs, newest first.

    Args:
        dataset: keep this dataset's runs (None: every run).

    Returns:
        The runs, with their dataset and campaign.
    """
    runs = SpanAgreementRun.objects.select_related("dataset", "campaign")
    if dataset is not None:
        runs = runs.filter(dataset=dataset)
    return runs.order_by("-created_at", "-id")


def run_as_dict(
    run: SpanAgreementRun, *, with_result: bool = True, current_digest: str | None = None
) -> dict:
    """A run's JSON form: what it compares, status, timings, error, staleness and its result.

    A finished run is ``stale`` when the annotations it compares changed since it read them
    (its ``inputs_digest`` differs from the ``current_digest``); a queued or running run reads
    them when it runs, so it is never stale.

    Args:
        run: the run (its dataset and campaign loaded).
        with_result: include ``result`` (it can be large: one entry per item).
        current_digest: the digest of the run's inputs now, if the caller has it (a list
            computes it once per source); None computes it.

    Returns:
        The dict.
    """
    if current_digest is None:
        current_digest = span_agreement_run_digest(run=run)
    seconds = None
    if run.started_at and run.finished_at:
        seconds = round((run.finished_at - run.started_at).total_seconds(), 3)
    data = {
        "id": run.pk,
        "dataset": run.dataset.slug,
        "scheme": run.scheme,
        "source": run.source,
        "campaign": run.campaign_id,
        "annotation_sets": sorted(run.annotation_sets.values_list("pk", flat=True)),
        "min_iou": run.min_iou,
        "submitted_only": run.submitted_only,
        "status": run.status,
        "error": run.error,
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "seconds": seconds,
        "inputs_digest": run.inputs_digest,
        "current_digest": current_digest,
        "stale": run.finished and run.inputs_digest != current_digest,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
    }
    if with_result:
        data["result"] = run.result
    return data


def span_agreement_runs_as_dicts(runs: Sequence[SpanAgreementRun]) -> list[dict]:
    """Runs' JSON forms without their results, each input digest computed once per source.

    Args:
        runs: the runs (datasets and campaigns loaded).

    Returns:
        One dict per run (see :func:`run_as_dict`), in the given order.
    """
    digests: dict[tuple, str] = {}
    found = []
    for run in runs:
        key = span_agreement_run_key(run=run)
        if key not in digests:
            digests[key] = span_agreement_run_digest(run=run)
        found.append(run_as_dict(run, with_result=False, current_digest=digests[key]))
    return found


def span_agreement_run_key(*, run: SpanAgreementRun) -> tuple:
    """What a run compares and how, as a hashable key: runs with equal keys read the same input.

    Args:
        run: the run (saved, for its annotation sets).

    Returns:
        ``(source, campaign id, annotation set ids, min_iou, submitted_only)``.
    """
    sets = tuple(sorted(run.annotation_sets.values_list("pk", flat=True))) if run.pk else ()
    return (run.source, run.campaign_id, sets, float(run.min_iou), bool(run.submitted_only))


def span_agreement_inputs_digest(
    *,
    campaign: Campaign | None = None,
    annotation_sets: Sequence[AnnotationSet] = (),
    min_iou: float = 0.0,
    submitted_only: bool = False,
) -> str:
    """SHA-256 of what a run over these inputs would compare, and how.

    It covers the options, the result's layout (``RESULT_FORMAT``) and every annotation row
    that counts (judged rows; for ``submitted_only``, rows of submitted tasks): its id, output,
    annotator (user or set), version, last update and "no errors" mark. Any save, import,
    reassignment, deletion or (with ``submitted_only``) submission or reopening changes it.

    Args:
        campaign: a PolyTope campaign (its users are the annotators), or None.
        annotation_sets: the sets compared when there is no campaign.
        min_iou: the run's partial-matching threshold.
        submitted_only: the run counts only submitted tasks' items.

    Returns:
        64 hex digits.
    """
    digest = hashlib.sha256()
    header = {
        "what": "span-agreement",
        "format": RESULT_FORMAT,
        "campaign": campaign.pk if campaign is not None else None,
        "annotation_sets": sorted(s.pk for s in annotation_sets),
        "min_iou": float(min_iou),
        "submitted_only": bool(submitted_only),
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    if campaign is not None:
        rows = _campaign_rows(campaign, submitted_only)
        key = "annotator_id"
    else:
        rows = _annotated(SpanAnnotation.objects.filter(annotation_set__in=list(annotation_sets)))
        key = "annotation_set_id"
    fields = ("id", "output_id", key, "version", "updated_at", "no_errors")
    for pk, output, who, version, updated, clean in (
        rows.order_by("id").values_list(*fields).iterator(chunk_size=2000)
    ):
        digest.update(
            f"\n{pk}:{output}:{who}:{version}:{updated.isoformat()}:{int(clean)}".encode()
        )
    return digest.hexdigest()


def span_agreement_run_digest(*, run: SpanAgreementRun) -> str:
    """The digest of a run's inputs as they are now (see :func:`span_agreement_inputs_digest`).

    Args:
        run: the run (saved).

    Returns:
        64 hex digits; equal to ``run.inputs_digest`` while its inputs are unchanged.
    """
    return span_agreement_inputs_digest(
        campaign=run.campaign if run.source == RunSource.CAMPAIGN else None,
        annotation_sets=list(run.annotation_sets.all()),
        min_iou=run.min_iou,
        submitted_only=run.submitted_only,
    )


def span_agreement_run_latest(
    *, runs: QuerySet[SpanAgreementRun], key: tuple, status: str | None = None
) -> SpanAgreementRun | None:
    """The newest of ``runs`` that compares ``key``'s input (optionally with a status).

    Args:
        runs: candidate runs (e.g. a dataset's or a campaign's).
        key: a :func:`span_agreement_run_key`.
        status: keep only runs with this status.

    Returns:
        The run, or None.
    """
    source, campaign, sets, min_iou, submitted_only = key
    candidates = runs.filter(source=source, min_iou=min_iou, submitted_only=submitted_only)
    if campaign is not None:
        candidates = candidates.filter(campaign_id=campaign)
    if status is not None:
        candidates = candidates.filter(status=status)
    for run in candidates.order_by("-created_at", "-id").prefetch_related("annotation_sets"):
        if tuple(sorted(s.pk for s in run.annotation_sets.all())) == sets:
            return run
    return None


def campaign_annotator_count(*, campaign: Campaign, submitted_only: bool = False) -> dict:
    """How many annotators annotated a campaign's outputs, and how many outputs overlap.

    Args:
        campaign: the campaign.
        submitted_only: count only rows whose task is submitted.

    Returns:
        ``{"annotators": n, "overlapping_items": m}``: annotators with at least one annotated
        row, and outputs annotated by at least two of them.
    """
    rows = _campaign_rows(campaign, submitted_only)
    annotators = rows.values("annotator_id").distinct().count()
    overlapping = (
        rows.values("output_id").annotate(n=Count("annotator_id")).filter(n__gte=2).count()
    )
    return {"annotators": annotators, "overlapping_items": overlapping}


def annotation_sets_overlap_count(*, annotation_sets: list[AnnotationSet]) -> int:
    """How many outputs are annotated in at least two of the sets.

    Args:
        annotation_sets: the sets.

    Returns:
        The number of outputs with an annotated row in two sets or more.
    """
    return (
        _annotated(SpanAnnotation.objects.filter(annotation_set__in=annotation_sets))
        .values("output_id")
        .annotate(n=Count("annotation_set_id", distinct=True))
        .filter(n__gte=2)
        .count()
    )


def annotation_set_repeated_outputs(*, annotation_set: AnnotationSet) -> list[int]:
    """Outputs that a set annotates more than once (several annotators' rows).

    Args:
        annotation_set: the set.

    Returns:
        Up to ten such output ids.
    """
    return list(
        SpanAnnotation.objects.filter(annotation_set=annotation_set)
        .values("output_id")
        .annotate(n=Count("id"))
        .filter(n__gte=2)
        .order_by("output_id")
        .values_list("output_id", flat=True)[:10]
    )


def _annotated(rows: QuerySet[SpanAnnotation]) -> QuerySet[SpanAnnotation]:
    """Rows that were judged: with errors, or marked as having none."""
    return rows.filter(Q(no_errors=True) | ~Q(errors=[]))


def _campaign_rows(campaign: Campaign, submitted_only: bool) -> QuerySet[SpanAnnotation]:
    rows = _annotated(
        SpanAnnotation.objects.filter(
            annotation_set_id=campaign.annotation_set_id, annotator__isnull=False
        )
    )
    if submitted_only:
        submitted = Task.objects.filter(
            campaign=campaign,
            status=TaskStatus.SUBMITTED,
            output_id=OuterRef("output_id"),
            annotator_id=OuterRef("annotator_id"),
        )
        rows = rows.filter(Exists(submitted))
    return rows


@dataclass(frozen=True)
class RunInput:
    """What a run compares, read from the database.

    Attributes:
        items: outputs annotated by at least two annotators, by output id.
        annotators: ``[{"key", ...}]`` per annotator, in report order.
        single: outputs annotated by one annotator only (left out).
        not_annotated: rows neither with errors nor marked clean (left out).
        other_texts: outputs whose annotators marked their spans in different texts (an
            official workbook's Target beside the stored output: offsets not comparable; left
            out).
    """

    items: list[AgreementItem]
    annotators: list[dict]
    single: int
    not_annotated: int
    other_texts: int = 0


def span_agreement_input(*, run: SpanAgreementRun) -> RunInput:
    """The annotations a run compares, as plain items for ``compute``.

    For a campaign, each user with an annotated row in its set is an annotator (key: the
    username). For annotation sets, each set is one annotator (key: the set's slug).

    Args:
        run: the run.

    Returns:
        The :class:`RunInput`.
    """
    if run.source == RunSource.CAMPAIGN:
        campaign = run.campaign
        base = SpanAnnotation.objects.filter(
            annotation_set_id=campaign.annotation_set_id, annotator__isnull=False
        )
        rows = _campaign_rows(campaign, run.submitted_only)
        key_of = "annotator__username"
        annotator_rows = {}
        for row in rows.values("annotator_id", "annotator__username").distinct():
            annotator_rows[row["annotator__username"]] = {
                "key": row["annotator__username"],
                "user": row["annotator_id"],
            }
    else:
        sets = list(run.annotation_sets.order_by("slug"))
        base = SpanAnnotation.objects.filter(annotation_set__in=sets)
        rows = _annotated(base)
        key_of = "annotation_set__slug"
        annotator_rows = {
            s.slug: {"key": s.slug, "annotation_set": s.pk, "kind": s.kind} for s in sets
        }
    not_annotated = base.count() - rows.count()
    by_output: dict[int, dict[str, tuple[dict, ...]]] = defaultdict(dict)
    texts: dict[int, set[str]] = defaultdict(set)
    for output_id, key, errors, no_errors, text in rows.values_list(
        "output_id", key_of, "errors", "no_errors", "annotated_text"
    ).order_by("output_id", key_of):
        by_output[output_id][key] = () if no_errors else tuple(errors)
        texts[output_id].add(text)
    shared = {output: people for output, people in by_output.items() if len(people) >= 2}
    other_texts = {output for output in shared if len(texts[output]) > 1}
    shared = {output: people for output, people in shared.items() if output not in other_texts}
    outputs = (
        SystemOutput.objects.filter(pk__in=list(shared))
        .select_related("document", "system")
        .order_by("pk")
    )
    items = [
        AgreementItem(
            output=output.pk,
            document=output.document.external_id,
            document_id=output.document_id,
            system=output.system.slug,
            summary=output_texts(output, next(iter(texts[output.pk])))[0],
            annotations=shared[output.pk],
        )
        for output in outputs
    ]
    annotators = [annotator_rows[key] for key in sorted(annotator_rows)]
    return RunInput(
        items=items,
        annotators=annotators,
        single=len(by_output) - len(shared),
        not_annotated=not_annotated,
        other_texts=len(other_texts),
    )
