"""AutoFAR selectors (reads): fits, runs, their JSON forms, the leaderboard block and stamp."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from annotation.corpus.models import Dataset
from scoring.scores.selectors import FAM_SOURCES

from .models import AutoFarFit, AutoFarRun, RunStatus
from .services import extractive_versions, target_document_ids

ESTIMATE_LABEL = "AutoFAR-L (estimate)"
ABSTRACTIVE_REASON = (
    "Abstractive systems have no extracted sentence indices, so FAR, and hence AutoFAR-L, "
    "does not apply to them."
)


def autofar_fit_list(*, dataset: Dataset | None = None) -> QuerySet[AutoFarFit]:
    """Stored fits, newest first.

    Args:
        dataset: only fits on this dataset (all when None).

    Returns:
        The fits, with their dataset.
    """
    fits = AutoFarFit.objects.select_related("dataset")
    return fits.filter(dataset=dataset) if dataset is not None else fits


def autofar_fit_get(*, fit_id: int) -> AutoFarFit:
    """One fit (HTTP 404 when missing).

    Args:
        fit_id: its primary key.

    Returns:
        The fit.
    """
    return get_object_or_404(AutoFarFit.objects.select_related("dataset"), pk=fit_id)


def autofar_run_list(*, dataset: Dataset) -> QuerySet[AutoFarRun]:
    """A dataset's AutoFAR-L runs, newest first.

    Args:
        dataset: the target dataset.

    Returns:
        The runs, with their dataset and fit.
    """
    return AutoFarRun.objects.filter(dataset=dataset).select_related("dataset", "fit__dataset")


def autofar_run_get(*, run_id: int) -> AutoFarRun:
    """One run (HTTP 404 when missing).

    Args:
        run_id: its primary key.

    Returns:
        The run.
    """
    return get_object_or_404(
        AutoFarRun.objects.select_related("dataset", "fit__dataset"), pk=run_id
    )


def autofar_run_latest(*, dataset: Dataset) -> AutoFarRun | None:
    """The dataset's last succeeded run (its estimates are the leaderboard's column).

    Args:
        dataset: the target dataset.

    Returns:
        The run, or None.
    """
    return (
        autofar_run_list(dataset=dataset)
        .filter(status=RunStatus.SUCCEEDED)
        .order_by("-finished_at", "-id")
        .first()
    )


def fit_as_dict(fit: AutoFarFit, *, report: bool = False) -> dict:
    """A fit's JSON form.

    Args:
        fit: the fit.
        report: include Tables 6-8 (``autofar_report``'s document).

    Returns:
        The dict.
    """
    data = {
        "id": fit.pk,
        "dataset": fit.dataset.slug,
        "scorers": fit.scorers,
        "top_ns": fit.top_ns,
        "k": fit.k,
        "features": fit.features,
        "intercept": fit.intercept,
        "weights": fit.weights,
        "rmse": fit.rmse,
        "r2": fit.r2,
        "validation_rmse": fit.validation_rmse,
        "validation_r2": fit.validation_r2,
        "validation_reason": fit.validation_reason or None,
        "held_out": fit.held_out,
        "n_documents": fit.n_documents,
        "n_systems": fit.n_systems,
        "n_rows": fit.n_rows,
        "digest": fit.digest,
        "created_at": fit.created_at.isoformat(),
    }
    if report:
        data["report"] = fit.report
    return data


def run_as_dict(run: AutoFarRun) -> dict:
    """A run's JSON form (status, progress, counts, its fit, the result once finished).

    Args:
        run: the run.

    Returns:
        The dict.
    """
    seconds = None
    if run.started_at:
        end = run.finished_at or run.started_at
        seconds = round((end - run.started_at).total_seconds(), 3)
    return {
        "id": run.pk,
        "dataset": run.dataset.slug,
        "fit": run.fit_id,
        "fit_dataset": run.fit.dataset.slug,
        "status": run.status,
        "progress": round(run.progress, 4),
        "chunks_total": run.chunks_total,
        "chunks_done": run.chunks_done,
        "documents_total": run.documents_total,
        "scores_written": run.scores_written,
        "dispatches": run.dispatches,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
        "result": run.result,
        "error": run.error,
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "seconds": seconds,
    }


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def autofar_note(fit: AutoFarFit) -> str:
    """The leaderboard's note on the AutoFAR-L column: what it is and how good the fit is.

    Args:
        fit: the fit the column was estimated with.

    Returns:
        "AutoFAR-L: estimated FAR from machine FAMs, fitted on <dataset>, fit RMSE x, R² y,
        leave-one-system-out RMSE z / R² w".
    """
    return (
        f"AutoFAR-L: estimated FAR from machine FAMs, fitted on {fit.dataset.slug}, "
        f"fit RMSE {_figure(fit.rmse)}, R\u00b2 {_figure(fit.r2)}, leave-one-system-out "
        f"RMSE {_figure(fit.validation_rmse)} / R\u00b2 {_figure(fit.validation_r2)}"
    )


def autofar_leaderboard_block(*, dataset: Dataset) -> dict:
    """The leaderboard payload's ``autofar`` block: the estimate's label, note, fit and run.

    Args:
        dataset: the leaderboard's dataset.

    Returns:
        ``{"available": False}`` without a succeeded run, else ``{"available", "metric",
        "label", "estimate", "note", "abstractive", "fit", "run"}``.
    """
    run = autofar_run_latest(dataset=dataset)
    if run is None:
        return {"available": False, "metric": "autofar_l"}
    fit = run.fit
    return {
        "available": True,
        "metric": "autofar_l",
        "label": ESTIMATE_LABEL,
        "estimate": True,
        "note": autofar_note(fit),
        "abstractive": ABSTRACTIVE_REASON,
        "fit": {
            "id": fit.pk,
            "dataset": fit.dataset.slug,
            "features": fit.features,
            "k": fit.k,
            "rmse": fit.rmse,
            "r2": fit.r2,
            "validation_rmse": fit.validation_rmse,
            "validation_r2": fit.validation_r2,
            "n_documents": fit.n_documents,
            "n_systems": fit.n_systems,
        },
        "run": {"id": run.pk, "finished_at": run.finished_at.isoformat()},
    }


def autofar_stamp(dataset: Dataset) -> str:
    """The leaderboard stamp part: the id and finish time of the dataset's last finished run.

    Args:
        dataset: the dataset.

    Returns:
        ``"<id>@<finished_at>"``, or ``"-"`` when no run finished.
    """
    last = (
        AutoFarRun.objects.filter(
            dataset=dataset, status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED]
        )
        .order_by("-finished_at", "-id")
        .values_list("id", "finished_at")
        .first()
    )
    return f"{last[0]}@{last[1].isoformat()}" if last else "-"


def autofar_fit_datasets() -> list[str]:
    """The datasets AutoFAR may be fitted on: those with human (gold or released) FAMs.

    Returns:
        Their slugs, sorted.
    """
    return list(
        Dataset.objects.filter(
            annotation_sets__kind__in=FAM_SOURCES, annotation_sets__fams__annotator__isnull=True
        )
        .values_list("slug", flat=True)
        .distinct()
        .order_by("slug")
    )


def autofar_start_missing(*, dataset: Dataset, fits: bool, fit_datasets: bool) -> str:
    """What an AutoFAR-L run of the dataset lacks before it can start ("" when nothing).

    Args:
        dataset: the target dataset.
        fits: some fit is stored.
        fit_datasets: some dataset has human FAMs to fit on.

    Returns:
        The reason, saying how to add what is missing.
    """
    if not extractive_versions(dataset=dataset):
        return (
            f"{dataset.slug} has no extractive system outputs: AutoFAR-L estimates FAR from "
            "extracted sentence indices. Upload an extractive system's outputs on the upload "
            "page (/upload/), then start AutoFAR-L."
        )
    if not target_document_ids(dataset=dataset):
        return f"every document of {dataset.slug} has a human FAM: nothing to estimate."
    if not fits and not fit_datasets:
        return (
            "no AutoFAR fit is stored and no dataset has human FAMs to fit one on: import a "
            "dataset with gold or released FAMs (or adjudicate a FAM campaign), then start "
            "AutoFAR-L."
        )
    return ""


def autofar_start_state(*, dataset: Dataset) -> dict:
    """The AutoFAR-L panel's state: the latest run, the fits and datasets to choose from, and
    what is missing to start a run.

    Args:
        dataset: the target dataset.

    Returns:
        ``dataset``, ``latest`` (the newest run's JSON form, or None), ``fits`` (the latest 20
        stored fits), ``fit_datasets`` (slugs) and ``missing``.
    """
    latest = autofar_run_list(dataset=dataset).order_by("-created_at", "-id").first()
    fits = [fit_as_dict(fit) for fit in autofar_fit_list().order_by("-created_at", "-id")[:20]]
    fit_datasets = autofar_fit_datasets()
    return {
        "dataset": dataset.slug,
        "latest": run_as_dict(latest) if latest else None,
        "fits": fits,
        "fit_datasets": fit_datasets,
        "missing": autofar_start_missing(
            dataset=dataset, fits=bool(fits), fit_datasets=bool(fit_datasets)
        ),
    }
