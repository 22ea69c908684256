"""AutoFAR-L runs: create, plan chunks, compute a chunk (machine FAMs, FAR, prediction), finish."""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from dataclasses import replace
from functools import partial

import numpy as np
from django.conf import settings
from django.db import transaction

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet
from annotation.jobs.kernel import (
    BACKGROUND_PRIORITY,
    JobKind,
    job_chunk_done,
    job_complete,
    job_fail,
    job_kind_register,
    job_plan,
    job_run_inline,
    job_send_on_commit,
    job_unfinished_refuse,
)
from annotation.systems.models import OutputVersion, SystemOutput
from config.exceptions import ApplicationError
from scoring.metrics.autofar import AutoFarModel, autofar_predict
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.far.document import all_support
from scoring.metrics.far.engine import FarEngine
from scoring.metrics.stats import KeyOrder
from scoring.scores.models import AUTOFAR_L, DocumentScore
from scoring.scores.selectors import (
    document_score_list,
    output_version_current_list,
    scoring_fam_map,
)
from scoring.scores.services.arrays import score_arrays_drop
from scoring.scores.services.store import (
    ScoreRow,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
)

from ..models import AutoFarChunk, AutoFarFit, AutoFarRun, RunStatus
from ..signals import autofar_run_finished
from .fits import autofar_fit_obtain
from .machine import (
    feature_parts,
    machine_fams_compute,
    machine_fams_store,
    machine_set_get_or_create,
    machine_set_slug,
)

log = logging.getLogger(__name__)
EXTRACTIVE = "extractive"


class AutoFarRunError(ApplicationError):
    """An AutoFAR-L run cannot start on this dataset (nothing to predict)."""


def model_of(fit: AutoFarFit) -> AutoFarModel:
    """The core's model of a stored fit.

    Args:
        fit: the fit.

    Returns:
        The :class:`AutoFarModel` (``autofar_predict`` applies it).
    """
    return AutoFarModel(
        features=tuple(fit.features),
        intercept=fit.intercept,
        weights={name: float(fit.weights[name]) for name in fit.features},
        n_rows=fit.n_rows,
        rmse=fit.rmse,
        r2=fit.r2,
    )


def extractive_versions(*, dataset: Dataset) -> list[OutputVersion]:
    """The dataset's current output versions of extractive systems (AutoFAR-L's columns).

    Args:
        dataset: the dataset.

    Returns:
        The versions, systems by slug.
    """
    versions = output_version_current_list(dataset=dataset)
    return sorted((v for v in versions if v.system.kind == EXTRACTIVE), key=lambda v: v.system.slug)


def target_document_ids(*, dataset: Dataset) -> list[int]:
    """The documents AutoFAR-L estimates: those without a human (gold or released) FAM.

    Args:
        dataset: the dataset.

    Returns:
        Their ids in the dataset's order (position, then external id).
    """
    human = scoring_fam_map(dataset=dataset)
    return [
        pk
        for pk in Document.objects.filter(dataset=dataset)
        .order_by("position", "external_id")
        .values_list("pk", flat=True)
        if pk not in human
    ]


@transaction.atomic
def autofar_run_create(
    *, dataset: Dataset, fit: AutoFarFit, user=None, queue: bool = True
) -> AutoFarRun:
    """Create an AutoFAR-L run and, once the transaction commits, queue it.

    Asking again while a run of the same dataset and fit is unfinished resumes that run (a
    run whose worker was lost is sent again; finished chunks are not recomputed).

    Args:
        dataset: the target dataset (extractive outputs, documents without human FAMs).
        fit: the fit to apply.
        user: who asked.
        queue: send it to the workers on commit (False: the caller runs it inline).

    Returns:
        The new (or resumed) run.

    Raises:
        AutoFarRunError: no current extractive output, or no document without a human FAM.
    """
    if not extractive_versions(dataset=dataset):
        raise AutoFarRunError(
            f"{dataset.slug} has no extractive system output: AutoFAR-L needs extracted "
            "sentence indices (abstractive systems have none)"
        )
    if not target_document_ids(dataset=dataset):
        raise AutoFarRunError(
            f"every document of {dataset.slug} has a human FAM: nothing to estimate"
        )
    run = (
        AutoFarRun.objects.select_for_update()
        .filter(dataset=dataset, fit=fit, status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
        .first()
    )
    if run is None:
        run = AutoFarRun(dataset=dataset, fit=fit, created_by=user)
        run.full_clean()
        run.save()
    if queue:
        job_send_on_commit(AUTOFAR, run.pk)
    return run


def _refuse_unfinished(dataset: Dataset) -> None:
    job_unfinished_refuse(
        jobs=AutoFarRun.objects.filter(dataset=dataset), label="AutoFAR-L run", of=dataset.slug
    )


def autofar_run_start(
    *,
    dataset: Dataset,
    fit: AutoFarFit | None = None,
    fit_dataset: Dataset | None = None,
    k: int = DEFAULT_K,
    user=None,
) -> AutoFarRun:
    """Start an AutoFAR-L run from a page or the API: one unfinished run per dataset at a time.

    The fit is a stored one (``fit``), or the fit on ``fit_dataset``'s human FAMs at cut-off
    ``k`` with the default scorers (computed now, or reused while its inputs are unchanged).
    The dataset's row is locked while the run is made, so two clicks at once start one run.

    Args:
        dataset: the target dataset (extractive outputs, documents without human FAMs).
        fit: a stored fit; or
        fit_dataset: the dataset to fit on (exactly one of the two).
        k: the FAR cut-off of a new fit.
        user: who asked.

    Returns:
        The queued run (sent to the workers on commit).

    Raises:
        ConflictError: a run of the dataset is queued or running (HTTP 409; ``extra["run"]``
            is its id, to follow it).
        AutoFarRunError: neither or both of ``fit`` and ``fit_dataset``, no extractive output,
            or no document without a human FAM (HTTP 400).
        AutoFarFitError: no fit on ``fit_dataset`` (no human FAM, say; HTTP 400).
    """
    if (fit is None) == (fit_dataset is None):
        raise AutoFarRunError(
            "give either a stored fit or a dataset with human FAMs to fit on",
            extra={"field": "fit"},
        )
    _refuse_unfinished(dataset)  # before a fit is computed for nothing
    if fit is None:
        fit = autofar_fit_obtain(dataset=fit_dataset, k=k, user=user).fit
    with transaction.atomic():
        Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
        _refuse_unfinished(dataset)
        return autofar_run_create(dataset=dataset, fit=fit, user=user)


def _plan(run: AutoFarRun, chunk_size: int | None = None) -> None:
    """The AutoFAR-L kind's plan: split the run's documents into chunks.

    It also creates the fit's machine FAM sets on the target dataset and removes AutoFAR-L
    rows of documents that now have a human FAM.

    Args:
        run: the run (locked by the kernel).
        chunk_size: documents per chunk (default ``settings.LOUPE_AUTOFAR_CHUNK``, 250).
    """
    size = chunk_size or settings.LOUPE_AUTOFAR_CHUNK
    ids = target_document_ids(dataset=run.dataset)
    for feature in run.fit.features:
        scorer, n = feature_parts(feature)
        machine_set_get_or_create(dataset=run.dataset, scorer=scorer, top_n=n)
    # Estimates of documents the run no longer covers (they gained a human FAM) go.
    gone = StaleScores()
    for version_id, document_id in (
        DocumentScore.objects.filter(
            metrics__has_key=AUTOFAR_L, version__in=extractive_versions(dataset=run.dataset)
        )
        .exclude(document_id__in=ids)
        .values_list("version_id", "document_id")
    ):
        gone.add(version_id=version_id, document_id=document_id, metrics=[AUTOFAR_L])
    document_scores_delete(stale=gone)
    AutoFarChunk.objects.bulk_create(
        AutoFarChunk(run=run, index=n, document_ids=ids[start : start + size])
        for n, start in enumerate(range(0, len(ids), size))
    )
    run.documents_total = len(ids)


def _kind(chunk_size: int | None):
    if chunk_size is None:
        return AUTOFAR
    return replace(AUTOFAR, plan=partial(_plan, chunk_size=chunk_size))


def autofar_run_plan(*, run: AutoFarRun, chunk_size: int | None = None) -> list[AutoFarChunk]:
    """Split the run's documents into chunks (once), mark it running; return unfinished chunks.

    Calling it again (a redelivered task, a resumed run) reuses the chunks already planned.

    Args:
        run: the run.
        chunk_size: documents per chunk (default ``settings.LOUPE_AUTOFAR_CHUNK``, 250).

    Returns:
        The chunks not done yet, in order.
    """
    return job_plan(kind=_kind(chunk_size), job=run)


def autofar_chunk_compute(*, chunk: AutoFarChunk) -> int:
    """Compute a chunk and write it (idempotent: a redelivered chunk recomputes and replaces).

    For the chunk's documents: the fit's machine FAMs (one score matrix per scorer, top-N per
    N), replacing those documents' FAMs in the machine sets; each current extractive output's
    FAR under every feature (at the fit's k); the fit applied by ``autofar_predict``; one
    the ``autofar_l`` key of each (version, document)'s ``DocumentScore`` upserted. An output whose
    machine FAM has no support group under some feature has no FAR there, hence no estimate
    (a row left from before is deleted). Everything is written in one transaction, and the
    chunk is marked done (the run's counters advance) only the first time.

    Args:
        chunk: the chunk.

    Returns:
        How many scores were written.

    Raises:
        MetricsError: an output the metrics refuse (the message names it).
    """
    run = AutoFarRun.objects.select_related("fit", "dataset").get(pk=chunk.run_id)
    fit = run.fit
    pairs = [feature_parts(feature) for feature in fit.features]
    documents = list(
        Document.objects.filter(pk__in=chunk.document_ids)
        .prefetch_related("references")
        .order_by("position", "external_id")
    )
    machine = machine_fams_compute(documents=documents, pairs=pairs)
    fams = {
        feature: {item.document.pk: item.fam for item in machine[pair]}
        for feature, pair in zip(fit.features, pairs, strict=True)
    }
    version_ids = [v.pk for v in extractive_versions(dataset=run.dataset)]
    extracted: dict[int, dict[int, list[int]]] = {}
    for version_id, document_id, indices in SystemOutput.objects.filter(
        version_id__in=version_ids, document_id__in=chunk.document_ids, extracted__isnull=False
    ).values_list("version_id", "document_id", "extracted"):
        if indices:
            extracted.setdefault(version_id, {})[document_id] = indices
    # FAR needs support under every feature: the other documents get no estimate.
    scorable = [
        d.pk
        for d in documents
        if all(d.pk in fams[f] and all_support(fams[f][d.pk]) for f in fit.features)
    ]
    scorable_set = set(scorable)
    engines = {f: FarEngine({d: fams[f][d] for d in scorable}) for f in fit.features if scorable}
    model = model_of(fit)
    order = KeyOrder(scorable)
    rows, unsupported, predicted = [], [], 0
    for version_id, outputs in extracted.items():
        unsupported += [(version_id, d) for d in outputs if d not in scorable_set]
        present = np.array([d in outputs for d in scorable], dtype=bool)
        if not present.any():  # (also when no document is scorable)
            continue
        features = {}
        for feature, engine in engines.items():
            matrix = engine.index_matrix([outputs.get(d, ()) for d in scorable])
            table = engine.score_matrix(matrix, fit.k, present=present)
            far = dict(zip(table.documents, table.far.tolist(), strict=True))
            features[feature] = {version_id: far}
        values = autofar_predict(model, features, order=order).per_document[version_id]
        predicted += len(values)
        rows.extend(ScoreRow(version_id, d, AUTOFAR_L, v) for d, v in values.items())
    counts = {
        "documents": len(documents),
        "documents_without_reference": len(documents) - len(machine[pairs[0]]),
        "outputs_predicted": predicted,
        "outputs_without_machine_support": len(unsupported),
    }
    by_slug = {
        s.slug: s
        for s in AnnotationSet.objects.filter(
            dataset=run.dataset, slug__in=[machine_set_slug(scorer=p[0], top_n=p[1]) for p in pairs]
        )
    }
    sets = {pair: by_slug[machine_set_slug(scorer=pair[0], top_n=pair[1])] for pair in pairs}
    with transaction.atomic():
        # One writer per chunk at a time: a chunk computed twice at once (redelivered while it
        # ran, or a resumed run) replaces the other's rows instead of colliding with them.
        AutoFarChunk.objects.select_for_update().filter(pk=chunk.pk).first()
        machine_fams_store(
            fams={annotation_set: machine[pair] for pair, annotation_set in sets.items()},
            document_ids=chunk.document_ids,
        )
        stale = StaleScores()
        for version_id, document_id in unsupported:
            stale.add(version_id=version_id, document_id=document_id, metrics=(AUTOFAR_L,))
        # Every version written or cleaned, locked and its score arrays dropped at once (one
        # ordered lock: see score_arrays_drop).
        score_arrays_drop(
            version_ids={row.version_id for row in rows} | {v for v, _ in unsupported}
        )
        document_scores_upsert(rows=rows)
        document_scores_delete(stale=stale)
        job_chunk_done(
            chunk=chunk,
            chunk_fields={"scores_written": len(rows), "counts": counts},
            scores_written=len(rows),
        )
    return len(rows)


def _result(run: AutoFarRun) -> dict:
    """The finished run's counts (summed over its chunks) and its estimates per system."""
    totals: dict[str, int] = {}
    for counts in run.chunks.values_list("counts", flat=True):
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    versions = output_version_current_list(dataset=run.dataset)
    values: dict[int, list[float]] = defaultdict(list)
    for version_id, _, _, value in document_score_list(
        version_ids=[v.pk for v in versions], metrics=[AUTOFAR_L], document_ids=_target_ids(run)
    ):
        values[version_id].append(value)
    means = {
        version_id: {"mean": math.fsum(found) / len(found), "n": len(found)}
        for version_id, found in values.items()
    }
    systems = []
    for version in sorted(versions, key=lambda v: v.system.slug):
        row = means.get(version.pk)
        entry = {"system": version.system.slug, "kind": version.system.kind}
        if version.system.kind != EXTRACTIVE:
            entry.update(mean=None, n_documents=0, reason="abstractive: no extracted indices")
        else:
            entry.update(mean=row["mean"] if row else None, n_documents=row["n"] if row else 0)
        systems.append(entry)
    return {**totals, "systems": systems}


def _target_ids(run: AutoFarRun) -> list[int]:
    return [pk for ids in run.chunks.values_list("document_ids", flat=True) for pk in ids]


def _finish(run: AutoFarRun) -> None:
    """The AutoFAR-L kind's finish: the run's result (in the transaction marking it done)."""
    run.result = _result(run)
    run.save(update_fields=["result"])


def _warm(run: AutoFarRun) -> None:
    autofar_run_finished.send(sender=AutoFarRun, dataset_id=run.dataset_id, k=run.fit.k, run=run)


def _chunk(chunk: AutoFarChunk) -> int:
    return autofar_chunk_compute(chunk=chunk)


AUTOFAR = job_kind_register(
    JobKind(
        name="autofar",
        job_model=AutoFarRun,
        chunk_model=AutoFarChunk,
        plan=_plan,
        chunk=_chunk,
        finish=_finish,
        after=_warm,
        priority=BACKGROUND_PRIORITY,
    )
)


def autofar_run_finish(*, run: AutoFarRun) -> bool:
    """Mark the run succeeded, with its result, if every chunk is done.

    Args:
        run: the run.

    Returns:
        True when the run is (now) finished; False when chunks are still missing.
    """
    return job_complete(kind=AUTOFAR, job=run)


def autofar_run_fail(*, run: AutoFarRun, error: str) -> AutoFarRun:
    """Record that a run failed and why (a succeeded run stays succeeded).

    Args:
        run: the run.
        error: the message shown by the API.

    Returns:
        The run.
    """
    return job_fail(kind=AUTOFAR, job=run, error=error)


def autofar_run_inline(*, run: AutoFarRun, chunk_size: int | None = None) -> AutoFarRun:
    """Run (or resume) a run in this process, chunk by chunk (``manage.py autofar_l``).

    Args:
        run: the run (queued, or left running by a lost worker).
        chunk_size: documents per chunk when it is planned now.

    Returns:
        The finished run.

    Raises:
        MetricsError: an output the metrics refuse (the run is then failed, unless it was
            already running: a worker may still own it).
    """
    return job_run_inline(kind=_kind(chunk_size), job=run)
