"""APES reads: runs, the leaderboard stamp part, and per-system APES from the stored scores."""

from __future__ import annotations

from collections import defaultdict

from django.shortcuts import get_object_or_404

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import SystemOutput
from scoring.metrics.apes import NO_QUESTIONS, SummaryApes, system_apes
from scoring.scores.selectors import document_score_list, output_version_current_list

from .models import ApesQuestionSet, ApesRun, RunStatus
from .nlp import ANSWERER_KEYS, ApesUnavailableError, answerers_available, spacy_version
from .services import NO_REFERENCE, OUTCOME_REASONS, apes_no_outputs_message


def apes_run_list(*, dataset: Dataset):
    """A dataset's APES runs, newest first.

    Args:
        dataset: the dataset.

    Returns:
        A queryset of :class:`ApesRun`.
    """
    return ApesRun.objects.filter(dataset=dataset).select_related("dataset")


def apes_run_get(*, run_id: int) -> ApesRun:
    """One APES run.

    Args:
        run_id: its primary key.

    Returns:
        The run.

    Raises:
        Http404: no such run.
    """
    return get_object_or_404(ApesRun.objects.select_related("dataset"), pk=run_id)


def apes_run_as_dict(run: ApesRun) -> dict:
    """A run for the API: status, progress, counts, outcomes, timings and the error.

    Args:
        run: the run.

    Returns:
        JSON-ready fields.
    """
    return {
        "id": run.pk,
        "dataset": run.dataset.slug,
        "status": run.status,
        "answerers": run.answerers,
        "skipped": run.skipped,
        "progress": run.progress,
        "chunks_total": run.chunks_total,
        "chunks_done": run.chunks_done,
        "outputs_total": run.outputs_total,
        "scores_written": run.scores_written,
        "questions_answered": run.questions_answered,
        "outcomes": run.outcomes,
        "outcome_reasons": OUTCOME_REASONS,
        "seconds": run.seconds,
        "dispatches": run.dispatches,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
        "error": run.error,
        "created_at": run.created_at.isoformat() if run.created_at else None,
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def apes_start_missing(*, dataset: Dataset) -> str:
    """What an APES run of the dataset lacks before it can start ("" when nothing).

    Args:
        dataset: the dataset.

    Returns:
        The reason, saying how to add what is missing: no outputs, or no answerer or spaCy
        model installed on the server.
    """
    if not output_version_current_list(dataset=dataset):
        return apes_no_outputs_message(dataset)
    try:
        available, skipped = answerers_available(list(ANSWERER_KEYS))
        spacy_version()
    except ApesUnavailableError as error:
        return str(error)
    if not available:
        return "no APES answerer can run here: " + "; ".join(skipped.values())
    return ""


def apes_start_state(*, dataset: Dataset) -> dict:
    """The APES panel's state: the latest run and what is missing to start one.

    Args:
        dataset: the dataset.

    Returns:
        ``dataset``, ``latest`` (the newest run's JSON form, or None) and ``missing``.
    """
    latest = apes_run_list(dataset=dataset).order_by("-created_at", "-id").first()
    return {
        "dataset": dataset.slug,
        "latest": apes_run_as_dict(latest) if latest else None,
        "missing": apes_start_missing(dataset=dataset),
    }


def apes_stamp(dataset: Dataset) -> str:
    """The leaderboard stamp part: the dataset's last finished run's id and finish time.

    Args:
        dataset: the dataset.

    Returns:
        ``"<id>@<finished_at>"``, or ``"-"`` before any run finished.
    """
    last = (
        ApesRun.objects.filter(dataset=dataset, status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED])
        .order_by("-finished_at", "-id")
        .values_list("id", "finished_at")
        .first()
    )
    return f"{last[0]}@{last[1].isoformat()}" if last else "-"


def apes_system_list(*, dataset: Dataset, answerers=ANSWERER_KEYS) -> list[dict]:
    """Per-system APES of every current output version, per answerer, from the stored scores.

    A summary's question count is its reference's stored question set's; its correct answers
    are its value times that count. Outputs without a score are undefined, with the reason
    (no question, no reference, or not scored yet by this answerer).

    Args:
        dataset: the dataset.
        answerers: the answerer keys to report.

    Returns:
        One dict per (answerer, system), systems by slug: ``answerer``, ``system``, ``name``,
        ``version``, ``value`` (mean over summaries), ``pooled``, ``n_summaries``, ``n_scored``,
        ``n_undefined``, ``undefined_reasons`` ({reason: count}), ``n_documents_without_output``
        (the dataset's documents this version has no summary for: not in any figure),
        ``n_questions``, ``n_correct``.
    """
    versions = sorted(output_version_current_list(dataset=dataset), key=lambda v: v.system.slug)
    documents = dict(
        Document.objects.filter(dataset=dataset)
        .order_by("position", "external_id")
        .values_list("id", "external_id")
    )
    first_reference: dict[int, int] = {}
    for document_id, reference_id in (
        Document.objects.filter(dataset=dataset, references__isnull=False)
        .order_by("id", "references__position")
        .values_list("id", "references__id")
    ):
        first_reference.setdefault(document_id, reference_id)
    n_questions = dict(
        ApesQuestionSet.objects.filter(reference_id__in=first_reference.values()).values_list(
            "reference_id", "n_questions"
        )
    )
    outputs = defaultdict(list)
    for version_id, document_id in SystemOutput.objects.filter(version__in=versions).values_list(
        "version_id", "document_id"
    ):
        outputs[version_id].append(document_id)
    values: dict = defaultdict(dict)
    for version_id, document_id, metric, value in document_score_list(
        version_ids=[v.pk for v in versions], metrics=answerers
    ):
        values[(version_id, metric)][document_id] = value
    order = {d: i for i, d in enumerate(documents)}
    result = []
    for key in answerers:
        for version in versions:
            stored = values.get((version.pk, key), {})
            per_summary, reasons = {}, defaultdict(int)
            for document_id in sorted(outputs[version.pk], key=order.get):
                reference = first_reference.get(document_id)
                count = n_questions.get(reference) if reference else None
                if document_id in stored and count:
                    value = stored[document_id]
                    correct = round(value * count)
                    summary = SummaryApes((), count, correct, value, None)
                    per_summary[documents[document_id]] = summary
                    continue
                if reference is None:
                    reason = OUTCOME_REASONS[NO_REFERENCE]
                elif count == 0:
                    reason = NO_QUESTIONS
                else:
                    reason = "not scored yet by this answerer (start an APES run)"
                reasons[reason] += 1
                per_summary[documents[document_id]] = SummaryApes((), 0, 0, None, reason)
            if not per_summary:
                continue
            figures = system_apes(per_summary, system=version.system.slug)
            without_output = len(documents) - len(outputs[version.pk])
            result.append(
                {
                    "answerer": key,
                    "system": version.system.slug,
                    "name": version.system.name,
                    "version": version.number,
                    "value": figures.value,
                    "pooled": figures.pooled,
                    "n_summaries": figures.n_summaries,
                    "n_scored": figures.n_scored,
                    "n_undefined": len(figures.undefined),
                    "undefined_reasons": dict(reasons),
                    "n_documents_without_output": without_output,
                    "n_questions": figures.n_questions,
                    "n_correct": figures.n_correct,
                }
            )
    return result
