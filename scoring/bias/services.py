"""Bias runs: request one (one waiting run per dataset), plan its chunks, score a chunk, merge
the chunks' sums into per-source rows, fail it; and run it in-process."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import asdict, replace
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.corpus.models import Dataset, Document, Reference
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
from annotation.systems.models import SystemOutput
from config.exceptions import ApplicationError
from config.gc import cyclic_gc_paused
from scoring.metrics.bias import DEFAULT_POSITION_BINS, bias_sums, sums_from_dict, sums_means
from scoring.metrics.bias import sums_merge as merge
from scoring.scores.selectors import output_version_current_list

from .compute import REFERENCE, bias_pairs_score
from .models import BiasChunk, BiasRun, BiasSourceRow, RunStatus, RunTrigger
from .selectors import (
    bias_inputs_digest,
    bias_run_latest_succeeded,
    bias_run_waits_for_scoring,
    bias_start_missing,
)

log = logging.getLogger(__name__)

#: A queued run younger than this is reused by a new request (it reads the dataset when it
#: runs); an older one is presumed lost (its task never reached a worker) and replaced.
QUEUED_REUSE = timedelta(minutes=15)
NEVER_STARTED = "never started: its task did not reach a worker; a new run was queued"


def _locked(run: BiasRun) -> BiasRun:
    return BiasRun.objects.select_for_update().get(pk=run.pk)


@transaction.atomic
def bias_run_request(
    *, dataset: Dataset, trigger: str, user=None, queue: bool = True
) -> tuple[BiasRun, bool]:
    """Make sure a bias run of the dataset waits for a worker; create one only if none does.

    One waiting run covers a burst of imports and uploads: it reads the dataset when it runs.
    A run queued longer than ``QUEUED_REUSE`` ago is presumed lost and failed, and a new one
    is queued. The run's task goes to the workers when the caller's transaction commits.

    Args:
        dataset: the dataset.
        trigger: ``import``, ``upload`` or ``manual``.
        user: who asked (or imported, uploaded).
        queue: send it to the workers on commit (False: the caller runs it in-process).

    Returns:
        ``(run, created)``.

    Raises:
        django.core.exceptions.ValidationError: an unknown trigger.
    """
    for _ in range(3):
        waiting = (
            BiasRun.objects.select_for_update()
            .filter(dataset=dataset, status=RunStatus.QUEUED)
            .first()
        )
        if waiting is not None:
            if waiting.created_at >= timezone.now() - QUEUED_REUSE:
                return waiting, False
            bias_run_fail(run=waiting, error=NEVER_STARTED)
        run = BiasRun(dataset=dataset, trigger=trigger, created_by=user, bins=DEFAULT_POSITION_BINS)
        # The dataset was just read; the one-queued-run rule is the database's to enforce.
        run.full_clean(exclude=["dataset", "created_by", "reused_from"], validate_constraints=False)
        try:
            with transaction.atomic():
                run.save()
        except IntegrityError:  # another transaction queued one meanwhile: use it
            continue
        if queue:
            job_send_on_commit(BIAS, run.pk)
        return run, True
    raise ApplicationError("Could not queue the bias run; try again.")


@transaction.atomic
def bias_run_start(*, dataset: Dataset, user) -> tuple[BiasRun, bool]:
    """Ask for a dataset's bias figures (a page's Compute, the API, ``bias --queue``): the
    latest run if its inputs are unchanged, else a new run; one unfinished run at a time.

    The dataset's row is locked while it checks, so two clicks at once start one run.

    Args:
        dataset: the dataset.
        user: who asks.

    Returns:
        ``(run, queued)``: the latest succeeded run when the dataset's inputs have the digest
        it read (``queued`` False); else a new queued run (``queued`` True).

    Raises:
        ConflictError: a run of the dataset is queued or running (HTTP 409; ``extra["run"]``
            is its id, to follow it).
        ApplicationError: the dataset has nothing to measure (HTTP 400, the reason says what
            to add).
    """
    Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
    # A queued run older than QUEUED_REUSE is presumed lost: it does not refuse (it is replaced).
    pending = job_unfinished_refuse(
        jobs=BiasRun.objects.filter(dataset=dataset),
        label="bias run",
        of=dataset.slug,
        stale_after=QUEUED_REUSE,
    )
    missing = bias_start_missing(dataset=dataset)
    if missing:
        raise ApplicationError(missing, extra={"missing": "items"})
    done = bias_run_latest_succeeded(dataset=dataset)
    if done is not None and pending is None:
        versions = output_version_current_list(dataset=dataset)
        if bias_inputs_digest(dataset=dataset, versions=versions, bins=done.bins) == (
            done.inputs_digest
        ):
            return done, False
    # (A queued run presumed lost is failed and replaced by bias_run_request.)
    run, _ = bias_run_request(dataset=dataset, trigger=RunTrigger.MANUAL, user=user)
    return run, True


def _plan(run: BiasRun, chunk_size: int | None = None) -> None:
    """The bias kind's plan: fix the run's inputs and split its documents into chunks.

    When a succeeded run read the same digest, this run reuses its rows and succeeds at once
    (nothing is recomputed); with nothing to measure it fails with the reason.

    Args:
        run: the run (locked by the kernel).
        chunk_size: documents per chunk (default ``settings.LOUPE_BIAS_CHUNK``: every
            source's summaries of 250 documents, about a second of work).
    """
    chunk_size = chunk_size or settings.LOUPE_BIAS_CHUNK
    dataset = run.dataset
    versions = output_version_current_list(dataset=dataset)
    run.versions.set(versions)
    run.inputs_digest = bias_inputs_digest(dataset=dataset, versions=versions, bins=run.bins)
    previous = (
        BiasRun.objects.filter(
            dataset=dataset, status=RunStatus.SUCCEEDED, inputs_digest=run.inputs_digest
        )
        .order_by("-created_at", "-id")
        .first()
    )
    documents = Document.objects.filter(dataset=dataset).order_by("position", "id")
    # Counted by the database: the sentences themselves are the chunks' to read.
    ids = list(documents.filter(n_sentences__gt=0).values_list("pk", flat=True))
    total = documents.count()
    run.meta = {
        "documents": total,
        "documents_without_text_left_out": total - len(ids),
        "systems": [v.system.slug for v in versions],
        "output_versions": {v.system.slug: v.number for v in versions},
        "bins": run.bins,
    }
    now = timezone.now()
    run.started_at = run.started_at or now
    if previous is not None:
        run.reused_from_id = previous.reused_from_id or previous.pk
        run.meta = previous.meta
        run.pairs_total = previous.pairs_total
        run.documents_total = previous.documents_total
        run.status = RunStatus.SUCCEEDED
        run.finished_at = now
        return
    pairs = Reference.objects.filter(document_id__in=ids).count()
    pairs += SystemOutput.objects.filter(version__in=versions, document_id__in=ids).count()
    if not pairs:
        run.status = RunStatus.FAILED
        run.error = (
            f"dataset {dataset.slug!r} has no reference or system output on a document "
            "with text: there is nothing to measure"
        )
        run.finished_at = now
        return
    BiasChunk.objects.bulk_create(
        BiasChunk(run=run, index=n, document_ids=ids[start : start + chunk_size])
        for n, start in enumerate(range(0, len(ids), chunk_size))
    )
    run.documents_total = len(ids)
    run.pairs_total = pairs


def _kind(chunk_size: int | None):
    return BIAS if chunk_size is None else replace(BIAS, plan=partial(_plan, chunk_size=chunk_size))


def bias_run_plan(*, run: BiasRun, chunk_size: int | None = None) -> list[BiasChunk]:
    """Fix the run's inputs and split its documents into chunks (once); mark it running.

    A later call (a redelivered task, a re-dispatch) reuses the chunks planned.

    Args:
        run: the run.
        chunk_size: documents per chunk (default ``settings.LOUPE_BIAS_CHUNK``).

    Returns:
        The chunks not done yet, in order (none for a finished or reused run).
    """
    return job_plan(kind=_kind(chunk_size), job=run)


def bias_chunk_compute(*, chunk: BiasChunk) -> int:
    """Score every source's summaries of the chunk's documents and store their sums.

    Idempotent: a redelivered chunk recomputes its sums; the chunk is marked done, and the
    run's counter advances, only the first time.

    Args:
        chunk: the chunk (its run loaded).

    Returns:
        How many pairs were scored.

    Raises:
        MetricsError: a text the measures refuse (the message names it).
    """
    with cyclic_gc_paused():  # the prepared documents' many tuples are no cycles
        sums, pairs = _chunk_sums(chunk)
    job_chunk_done(chunk=chunk, chunk_fields={"sums": sums, "pairs": pairs})
    return pairs


def _chunk_sums(chunk: BiasChunk) -> tuple[dict, int]:
    """Read a chunk's documents and summaries; their sums per source and the pairs scored."""
    run = chunk.run
    documents = list(
        Document.objects.filter(pk__in=chunk.document_ids)
        .order_by("position", "id")
        .only("id", "sentences")
    )
    documents = [d for d in documents if d.sentences]
    versions = sorted(run.versions.select_related("system"), key=lambda v: v.system.slug)
    groups = defaultdict(list)
    for (kind, source), item in bias_pairs_score(documents=documents, versions=versions):
        groups[(kind, source)].append(item)
    sums = {
        source: {"kind": kind, "sums": asdict(bias_sums(items, bins=run.bins))}
        for (kind, source), items in groups.items()
    }
    return sums, sum(len(items) for items in groups.values())


def _merge(run: BiasRun) -> None:
    """The bias kind's finish: merge the chunks' sums into one row per source (in the
    transaction that marks the run succeeded)."""
    parts: dict[str, list] = defaultdict(list)
    kinds: dict[str, str] = {}
    for chunk in run.chunks.order_by("index"):
        for source, data in (chunk.sums or {}).items():
            parts[source].append(sums_from_dict(data["sums"]))
            kinds[source] = data["kind"]
    versions = {v.system.slug: v for v in run.versions.select_related("system")}
    order = sorted(parts, key=lambda source: (source != REFERENCE, source))
    BiasSourceRow.objects.filter(run=run).delete()
    rows = []
    for position, source in enumerate(order):
        means = sums_means(merge(parts[source]))
        rows.append(
            BiasSourceRow(
                run=run,
                position=position,
                source=source,
                kind=kinds[source],
                version=versions.get(source),
                n_items=means.n_items,
                n_empty_summaries=means.n_empty_summaries,
                coverage=means.coverage,
                density=means.density,
                compression=means.compression,
                copy_length=means.copy_length,
                novel=list(means.novel),
                repeated=list(means.repeated),
                ngram_counts=list(means.ngram_counts),
                fusion=means.fusion,
                mean_position=means.mean_position,
                position_histogram=list(means.position_histogram),
            )
        )
    for row in rows:
        row.full_clean(exclude=["run", "version"], validate_unique=False)
    BiasSourceRow.objects.bulk_create(rows)
    run.meta = {**run.meta, "pairs": {row.source: row.n_items for row in rows}}
    run.save(update_fields=["meta"])


def _chunk(chunk: BiasChunk) -> int:
    return bias_chunk_compute(chunk=chunk)


def _waits(run: BiasRun) -> bool:
    return bias_run_waits_for_scoring(run=run)


BIAS = job_kind_register(
    JobKind(
        name="bias",
        job_model=BiasRun,
        chunk_model=BiasChunk,
        plan=_plan,
        chunk=_chunk,
        finish=_merge,
        waits_for=_waits,
        priority=BACKGROUND_PRIORITY,
    )
)


def bias_run_finish(*, run: BiasRun) -> bool:
    """Merge the chunks' sums into one row per source and mark the run succeeded, if every
    chunk is done (idempotent: a finished run is left alone).

    Args:
        run: the run.

    Returns:
        True when the run is (now) finished; False when chunks are still missing.
    """
    return job_complete(kind=BIAS, job=run)


def bias_run_fail(*, run: BiasRun, error: str) -> BiasRun:
    """Record that a run failed and why (a succeeded run is left alone).

    Args:
        run: the run.
        error: the message the API and the pages show.

    Returns:
        The run.
    """
    return job_fail(kind=BIAS, job=run, error=error)


def bias_run_inline(*, run: BiasRun, chunk_size: int | None = None) -> BiasRun:
    """Run a run in this process, chunk by chunk (``manage.py bias --queue --sync``, tests).

    Args:
        run: the run (queued, or left running by a lost worker).
        chunk_size: documents per chunk (default ``settings.LOUPE_BIAS_CHUNK``).

    Returns:
        The finished run.

    Raises:
        MetricsError: a text the measures refuse (the run is failed first).
    """
    return job_run_inline(kind=_kind(chunk_size), job=run)
