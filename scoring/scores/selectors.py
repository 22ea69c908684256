"""Score selectors (reads): current output versions, the FAMs scoring uses, jobs and scores."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np
from django.db import connection, transaction
from django.db.models import BooleanField, F, FloatField, Func, IntegerField, Max, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from annotation.adjudication.selectors import gold_counted_q
from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSetKind, Fam
from annotation.spans.models import SpanAnnotation
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.leaderboard import ColumnDocuments, ScoreColumn
from scoring.metrics.rouge import DEFAULT_ROUGE, RougeConfig

from .models import (
    OUTPUTS_KEY,
    DocumentScore,
    JobStatus,
    JobTrigger,
    RougeSettings,
    ScoreArray,
    ScoringJob,
)

# The FAMs FAR is computed against, best first: adjudicated gold, then a release's own. A
# campaign's gold counts only for the documents marked adjudicated (done): see gold_counted_q.
FAM_SOURCES = (AnnotationSetKind.GOLD, AnnotationSetKind.RELEASED)


def output_version_current_list(*, dataset: Dataset) -> list[OutputVersion]:
    """The latest output version of every system that has outputs for ``dataset``.

    Args:
        dataset: the dataset.

    Returns:
        One version per system (the highest number), with its system loaded, by system slug.
    """
    latest = (
        OutputVersion.objects.filter(dataset=dataset)
        .values("system_id")
        .annotate(number=Max("number"))
        .order_by()
    )
    wanted = {(row["system_id"], row["number"]) for row in latest}
    versions = OutputVersion.objects.filter(dataset=dataset).select_related("system")
    return sorted(
        (v for v in versions if (v.system_id, v.number) in wanted), key=lambda v: v.system.slug
    )


class _IdsIn(Func):
    """``field IN ids`` with the ids as one array parameter on PostgreSQL (``= ANY(%s)``, the
    condition PostgreSQL makes of an ``IN`` list): Django's ``__in`` prepares and compiles each
    of a chunk's 500 ids on its own. The array is cast to the column's type (an ``integer[]``
    against a ``bigint`` column is compared across types, and planned worse). Other databases
    get an ``IN`` list."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, field: str, ids: Iterable[int]) -> None:
        super().__init__(F(field))
        self.ids = list(ids)

    def as_sql(self, compiler, connection, **extra):
        target = self.source_expressions[0]
        column, params = compiler.compile(target)
        if connection.vendor == "postgresql":
            array = f"{target.output_field.db_type(connection)}[]"
            return f"{column} = ANY(%s::{array})", (*params, self.ids)
        return f"{column} IN ({', '.join(['%s'] * len(self.ids))})", (*params, *self.ids)


def _scoring_fams(dataset: Dataset, document_ids) -> QuerySet:
    """The FAMs that may score a dataset's documents, best-first within each document's kind."""
    fams = Fam.objects.filter(
        gold_counted_q(),
        annotation_set__dataset=dataset,
        annotation_set__kind__in=FAM_SOURCES,
        annotator__isnull=True,
    )
    if document_ids is not None:
        fams = fams.filter(_IdsIn("document_id", document_ids))
    return fams.order_by("reference__position", "-updated_at", "-id")


def _chosen(rows, kind_of) -> dict:
    """Per document (``row.document_id``), the first row of the best kind (gold, then
    released)."""
    rank = {kind: position for position, kind in enumerate(FAM_SOURCES)}
    chosen: dict = {}
    for row in rows:
        current = chosen.get(row.document_id)
        if current is None or rank[kind_of(row)] < rank[kind_of(current)]:
            chosen[row.document_id] = row
    return chosen


def scoring_fam_map(*, dataset: Dataset, document_ids=None) -> dict[int, Fam]:
    """The FAM each document's FAR is computed against: gold if there is one, else released.

    Only FAMs without an annotator (adjudicated or released) count, and a campaign's gold FAM
    only once its document is adjudicated (done; an imported or admin-made gold set always
    counts); among several of the same kind, the one of the first reference, then the most
    recently updated, is used.

    Args:
        dataset: the dataset.
        document_ids: only these documents (all when None).

    Returns:
        document id -> :class:`Fam`, with its annotation set and reference loaded.
    """
    return _chosen(
        _scoring_fams(dataset, document_ids).select_related("annotation_set", "reference"),
        kind_of=lambda fam: fam.annotation_set.kind,
    )


class ScoringFam(NamedTuple):
    """The FAM a document is scored against, as plain data (what a scoring chunk needs)."""

    pk: int
    document_id: int
    reference_id: int
    facets: list[dict]
    kind: str


def scoring_fam_rows(*, dataset: Dataset, document_ids) -> dict[int, ScoringFam]:
    """:func:`scoring_fam_map` as plain rows: no model instances (a chunk reads 500 at once).

    Args:
        dataset: the dataset.
        document_ids: the documents.

    Returns:
        document id -> its :class:`ScoringFam` (the same FAM :func:`scoring_fam_map` picks).
    """
    rows = _scoring_fams(dataset, document_ids).values_list(
        "pk", "document_id", "reference_id", "facets", "annotation_set__kind"
    )
    return _chosen((ScoringFam(*row) for row in rows), kind_of=lambda fam: fam.kind)


# Set the planner's parallel costs for the rest of the transaction; returns the old values.
_PARALLEL_READ = (
    "SELECT current_setting('parallel_setup_cost'), current_setting('parallel_tuple_cost'), "
    "set_config('parallel_setup_cost', %s, true), set_config('parallel_tuple_cost', %s, true)"
)
_PARALLEL_COSTS = ("10", "0.001")


def _score_rows(version_ids, wanted: list[str], categories) -> list[tuple]:
    """``(version id, document id, *values)`` of the rows holding some wanted metric, each
    value a float or None, in the order of ``wanted``.

    Each value is taken out of the JSON by the database as a float, and the statement runs on
    the cursor: no row's whole object is decoded here, and the driver's floats need none of
    the ORM's per-value converters (which cost more than the query on millions of values).
    """
    ids = list(version_ids)
    categories = None if categories is None else list(categories)
    if not ids or categories == []:
        # An empty IN list compiles to no SQL at all (Django raises EmptyResultSet): no rows.
        return []
    rows = DocumentScore.objects.filter(version_id__in=ids, metrics__has_any_keys=wanted)
    if categories is not None:
        rows = rows.filter(document__category__in=categories)
    values = [Cast(KeyTextTransform(metric, "metrics"), FloatField()) for metric in wanted]
    query = rows.values_list("version_id", "document_id", *values).order_by().query
    sql, params = query.sql_with_params()
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    with transaction.atomic(), connection.cursor() as cursor:
        # The planner does not count what taking each value out of the JSON costs (most of
        # this statement's time): with accurate statistics it scans a million rows in one
        # process. Cheaper parallel costs, for this statement only, let it share the scan
        # with its workers (8.3 s -> 5.2 s for 100 versions x 11,490 documents on 2 cores).
        # (An error rolls the savepoint back, and the settings with it.)
        cursor.execute(_PARALLEL_READ, _PARALLEL_COSTS)
        previous = cursor.fetchone()[:2]
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        cursor.execute(_PARALLEL_READ, previous)
        return rows


def document_score_list(
    *, version_ids: Iterable[int], metrics: Iterable[str], document_ids=None, categories=None
) -> list[tuple[int, int, str, float]]:
    """Stored per-document scores, one tuple per value.

    Args:
        version_ids: the output versions.
        metrics: the metric keys wanted (``rouge1_f``, ``far@3``, ...).
        document_ids: only these documents (all when None). The scope is applied to the rows
            read, not sent as a list of ids in the SQL: callers pass a category's or a dataset's
            thousands of documents, and the versions' rows are read anyway.
        categories: only documents of these facet categories (all when None).

    Returns:
        ``(version id, document id, metric, value)`` for each wanted metric stored, in no
        particular order.
    """
    wanted = list(dict.fromkeys(metrics))
    if not wanted:
        return []
    scope = None if document_ids is None else set(document_ids)
    return [
        (version_id, document_id, metric, value)
        for version_id, document_id, *stored in _score_rows(version_ids, wanted, categories)
        if scope is None or document_id in scope
        for metric, value in zip(wanted, stored, strict=True)
        if value is not None
    ]


def document_score_map(
    *, version_ids: Iterable[int], metrics: Iterable[str], categories=None
) -> dict[int, dict[str, dict[int, float]]]:
    """Stored per-document scores by version and metric, built straight from the rows.

    :func:`document_score_list` as nested dictionaries, without a tuple per value (a
    leaderboard reads millions of values).

    Args:
        version_ids: the output versions.
        metrics: the metric keys wanted.
        categories: only documents of these facet categories (all when None).

    Returns:
        version id -> metric -> document id -> value; a version or metric without any stored
        value is absent.
    """
    wanted = list(dict.fromkeys(metrics))
    found: dict[int, dict[str, dict[int, float]]] = {}
    if not wanted:
        return found
    columns: dict[int, list[dict[int, float]]] = {}
    for version_id, document_id, *stored in _score_rows(version_ids, wanted, categories):
        per_metric = columns.get(version_id)
        if per_metric is None:
            per_metric = columns[version_id] = [{} for _ in wanted]
        for column, value in zip(per_metric, stored, strict=True):
            if value is not None:
                column[document_id] = value
    for version_id, per_metric in columns.items():
        kept = {metric: values for metric, values in zip(wanted, per_metric, strict=True) if values}
        if kept:
            found[version_id] = kept
    return found


class _JsonKeyCount(Func):
    """How many keys a JSON object column holds, counted by the database."""

    template = "(SELECT count(*) FROM jsonb_object_keys(%(expressions)s))"
    output_field = IntegerField()

    def as_sqlite(self, compiler, connection, **extra):
        template = "(SELECT count(*) FROM json_each(%(expressions)s))"
        return super().as_sql(compiler, connection, template=template, **extra)


def document_score_value_count(*, version_ids: Iterable[int]) -> int:
    """How many per-document values the versions have stored (every metric of every row),
    counted by the database: no row's object is read.

    Args:
        version_ids: the output versions.

    Returns:
        The number of values.
    """
    return (
        DocumentScore.objects.filter(version_id__in=list(version_ids))
        .annotate(n_values=_JsonKeyCount("metrics"))
        .aggregate(total=Sum("n_values"))["total"]
        or 0
    )


@dataclass(frozen=True, slots=True)
class ChunkOutput:
    """What scoring reads of one system output: its text and indices, and its document's
    external id and sentence count (the document's sentences themselves are not read)."""

    pk: int
    version_id: int
    document_id: int
    sentences: list[str]
    extracted: list[int] | None
    external_id: str
    sentence_count: int


def scoring_chunk_outputs(*, output_ids: Iterable[int]) -> list[ChunkOutput]:
    """A scoring chunk's outputs, read in one query as plain rows (no model instances).

    Args:
        output_ids: the outputs.

    Returns:
        The existing ones among them, by document position, then version.
    """
    rows = (
        SystemOutput.objects.filter(_IdsIn("id", output_ids))
        .order_by("document__position", "document_id", "version_id")
        .values_list(
            "pk",
            "version_id",
            "document_id",
            "sentences",
            "extracted",
            "document__external_id",
            "document__n_sentences",
        )
    )
    return [ChunkOutput(*row) for row in rows]


def scoring_reference_texts(*, document_ids: Iterable[int]) -> dict[int, dict[int, list[str]]]:
    """The references of some documents, as sentences, in each document's reference order.

    Args:
        document_ids: the documents.

    Returns:
        document id -> reference id -> sentences (the first item is the first reference).
    """
    found: dict[int, dict[int, list[str]]] = {}
    for reference_id, document_id, sentences in (
        Reference.objects.filter(_IdsIn("document_id", document_ids))
        .order_by("document_id", "position", "id")
        .values_list("id", "document_id", "sentences")
    ):
        found.setdefault(document_id, {})[reference_id] = sentences
    return found


# The span annotations PolyTope is scored against, best first: adjudicated gold, then released
# (a campaign's gold only for its documents marked adjudicated, as for FAMs).
SPAN_SOURCES = (AnnotationSetKind.GOLD, AnnotationSetKind.RELEASED)
POLYTOPE_SCHEME = "polytope"


def scoring_spans_exist(*, dataset: Dataset) -> bool:
    """Whether any span annotation of any set of the dataset exists (scoring skips reading
    spans per output when none does).

    Args:
        dataset: the dataset.

    Returns:
        True when one exists.
    """
    return SpanAnnotation.objects.filter(annotation_set__dataset=dataset).exists()


def scoring_span_map(*, output_ids, scheme: str = POLYTOPE_SCHEME) -> dict[int, SpanAnnotation]:
    """The span annotation each output is scored against: gold if there is one, else released.

    Only annotated rows count (errors, or the "no errors" mark) of sets without an annotator
    (adjudicated or released), and a campaign's gold rows only once their document is
    adjudicated (done), as for FAMs; among several of the same kind, the most recently updated
    wins. An output without such a row is not annotated: it gets no score.

    Args:
        output_ids: the outputs.
        scheme: the sets' span scheme.

    Returns:
        output id -> :class:`SpanAnnotation`, with its annotation set loaded.
    """
    rows = SpanAnnotation.objects.filter(
        gold_counted_q(document_field="output__document_id"),
        output_id__in=list(output_ids),
        annotation_set__scheme=scheme,
        annotation_set__kind__in=SPAN_SOURCES,
        annotator__isnull=True,
    ).select_related("annotation_set")
    rank = {kind: position for position, kind in enumerate(SPAN_SOURCES)}
    chosen: dict[int, SpanAnnotation] = {}
    for row in rows.order_by("-updated_at", "-id"):
        if not row.annotated:
            continue
        current = chosen.get(row.output_id)
        if current is None or rank[row.annotation_set.kind] < rank[current.annotation_set.kind]:
            chosen[row.output_id] = row
    return chosen


def scoring_judged_spans(*, output_ids, scheme: str) -> dict[int, list[list[dict]]]:
    """Every annotator's errors in each output, over the non-machine sets of ``scheme``.

    Each set, and within a set each annotator, is one judgment (the XSum release has one set
    per crowd worker); only annotated rows count (errors, or the "no errors" mark).

    Args:
        output_ids: the outputs.
        scheme: the span scheme (e.g. ``xsum-hallucinations``).

    Returns:
        output id -> one error list per judgment, in set and annotator order.
    """
    rows = (
        SpanAnnotation.objects.filter(output_id__in=list(output_ids), annotation_set__scheme=scheme)
        .exclude(annotation_set__kind=AnnotationSetKind.MACHINE)
        .order_by("output_id", "annotation_set_id", "annotator_id", "id")
        .values_list("output_id", "errors", "no_errors")
    )
    judged: dict[int, list[list[dict]]] = {}
    for output_id, errors, no_errors in rows:
        if errors or no_errors:
            judged.setdefault(output_id, []).append(list(errors))
    return judged


def scoring_span_versions(*, dataset: Dataset, scheme: str = POLYTOPE_SCHEME) -> set[int]:
    """The output versions of ``dataset`` with outputs that a gold or released set annotates
    (a campaign's gold only for its adjudicated documents).

    Args:
        dataset: the dataset.
        scheme: the span scheme.

    Returns:
        Their primary keys.
    """
    return set(
        SpanAnnotation.objects.filter(
            gold_counted_q(document_field="output__document_id"),
            annotation_set__dataset=dataset,
            annotation_set__scheme=scheme,
            annotation_set__kind__in=SPAN_SOURCES,
            annotator__isnull=True,
        )
        .values_list("output__version_id", flat=True)
        .distinct()
    )


def scoring_fams_exist(*, dataset: Dataset) -> bool:
    """Whether any document of ``dataset`` has a FAM that FAR can be computed against.

    Args:
        dataset: the dataset.

    Returns:
        True when a gold or released FAM without an annotator exists (a campaign's gold FAM
        only if its document is adjudicated).
    """
    return Fam.objects.filter(
        gold_counted_q(),
        annotation_set__dataset=dataset,
        annotation_set__kind__in=FAM_SOURCES,
        annotator__isnull=True,
    ).exists()


def dataset_ks(*, dataset: Dataset) -> list[int]:
    """Every FAR cut-off the dataset's jobs computed, plus the default 3.

    Args:
        dataset: the dataset.

    Returns:
        The sorted cut-offs.
    """
    asked = ScoringJob.objects.filter(dataset=dataset).values_list("ks", flat=True)
    return sorted({k for ks in asked for k in ks} | {DEFAULT_K})


@dataclass(frozen=True)
class RougeRead:
    """A dataset's ROUGE settings as read: the configuration, its revision (0: never set, Loupe's
    default), who changed it last and when, and how far its rescoring is.

    ``status`` is ``current`` (every output was scored with it, as far as jobs know),
    ``rescoring`` (a job for a change is queued or running: the ROUGE columns may cover only
    part of the outputs) or ``failed`` (the last such job failed, with ``error``).
    """

    config: RougeConfig
    revision: int
    updated_by: str | None
    updated_at: str | None
    status: str
    error: str

    def as_dict(self) -> dict:
        """The JSON form: the options, ``keys`` stored, the rouge-score call and the state."""
        return {
            **self.config.as_dict(),
            "keys": list(self.config.keys()),
            "scorer": self.config.scorer_call(),
            "revision": self.revision,
            "updated_by": self.updated_by,
            "updated_at": self.updated_at,
            "status": self.status,
            "error": self.error,
        }


def rouge_config_get(*, dataset: Dataset) -> tuple[RougeConfig, int]:
    """The ROUGE a dataset's scoring computes, and the settings' revision.

    Args:
        dataset: the dataset.

    Returns:
        ``(config, revision)``: Loupe's default and 0 when the dataset has no settings.
    """
    row = RougeSettings.objects.filter(dataset=dataset).values_list(*_ROUGE_FIELDS).first()
    return _rouge_config(row)


_ROUGE_FIELDS = ("rouge_types", "use_stemmer", "split_summaries", "revision")


def _rouge_config(row) -> tuple[RougeConfig, int]:
    """``(config, revision)`` of a settings row read as :data:`_ROUGE_FIELDS` (None: none)."""
    if row is None:
        return DEFAULT_ROUGE, 0
    types, use_stemmer, split_summaries, revision = row[:4]
    return RougeConfig(tuple(types), use_stemmer, split_summaries), revision


def rouge_settings_get(*, dataset: Dataset) -> RougeRead:
    """A dataset's ROUGE settings with who changed them and the state of their rescoring.

    Args:
        dataset: the dataset.

    Returns:
        The :class:`RougeRead`.
    """
    row = (
        RougeSettings.objects.filter(dataset=dataset)
        .values_list(*_ROUGE_FIELDS, "updated_by__username", "updated_at")
        .first()
    )
    config, revision = _rouge_config(row)
    user, at = row[4:] if row else (None, None)
    job = (
        ScoringJob.objects.filter(dataset=dataset, trigger=JobTrigger.ROUGE)
        .order_by("-created_at", "-id")
        .values_list("status", "error")
        .first()
    )
    status, error = "current", ""
    if job is not None and job[0] in (JobStatus.QUEUED, JobStatus.RUNNING):
        status = "rescoring"
    elif job is not None and job[0] == JobStatus.FAILED:
        status, error = "failed", job[1]
    return RougeRead(config, revision, user, at.isoformat() if at else None, status, error)


def scoring_job_list(*, dataset: Dataset) -> QuerySet[ScoringJob]:
    """A dataset's scoring jobs, newest first.

    Args:
        dataset: the dataset.

    Returns:
        The jobs.
    """
    return ScoringJob.objects.filter(dataset=dataset).order_by("-created_at", "-id")


def scoring_job_get(*, job_id: int) -> ScoringJob:
    """One scoring job.

    Args:
        job_id: its primary key.

    Returns:
        The job, with its dataset loaded.

    Raises:
        ScoringJob.DoesNotExist: no such job.
    """
    return ScoringJob.objects.select_related("dataset").get(pk=job_id)


def scoring_job_pending_list(*, dataset: Dataset) -> QuerySet[ScoringJob]:
    """The dataset's jobs that are queued or running, oldest first.

    Args:
        dataset: the dataset.

    Returns:
        The unfinished jobs.
    """
    return ScoringJob.objects.filter(
        dataset=dataset, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    ).order_by("created_at", "id")


def job_as_dict(job: ScoringJob | None) -> dict | None:
    """A scoring job's JSON form (status, progress, counts, timings, error).

    Args:
        job: the job, or None.

    Returns:
        The dict, or None.
    """
    if job is None:
        return None
    seconds = None
    if job.started_at:
        end = job.finished_at or job.started_at
        seconds = round((end - job.started_at).total_seconds(), 3)
    return {
        "id": job.pk,
        "dataset": job.dataset.slug,
        "trigger": job.trigger,
        "status": job.status,
        "progress": round(job.progress, 4),
        "ks": job.ks,
        "chunks_total": job.chunks_total,
        "chunks_done": job.chunks_done,
        "outputs_total": job.outputs_total,
        "scores_written": job.scores_written,
        "error": job.error,
        "recoveries": job.recoveries,
        "recovery_note": job.recovery_note,
        "created_at": job.created_at.isoformat(),
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "seconds": seconds,
    }


def scoring_jobs_summary(*, dataset: Dataset) -> dict:
    """What the pages show about scoring: unfinished jobs and the latest one.

    Args:
        dataset: the dataset.

    Returns:
        ``{"pending": int, "latest": job dict or None}``.
    """
    latest = ScoringJob.objects.filter(dataset=dataset).select_related("dataset").first()
    return {
        "pending": scoring_job_pending_list(dataset=dataset).count(),
        "latest": job_as_dict(latest),
    }


def score_array_documents(*, dataset: Dataset) -> tuple[list[int], str]:
    """The dataset's documents in order (position, then external id), as score arrays hold
    them, and the digest of that order (:attr:`ScoreArray.order`).

    Args:
        dataset: the dataset.

    Returns:
        ``(document ids in order, SHA-256 hex digest of them)``.
    """
    ids = list(
        Document.objects.filter(dataset=dataset)
        .order_by("position", "external_id")
        .values_list("id", flat=True)
    )
    return ids, hashlib.sha256(np.asarray(ids, dtype="<i8").tobytes()).hexdigest()


def score_arrays_lacking(version_ids: Iterable[int], order: str) -> list[int]:
    """The versions among ``version_ids`` without score arrays in the document order ``order``.

    Args:
        version_ids: output versions.
        order: the digest of their dataset's documents in order (:func:`score_array_documents`).

    Returns:
        Their ids, sorted.
    """
    version_ids = set(version_ids)
    built = set(
        ScoreArray.objects.filter(version_id__in=list(version_ids), key=OUTPUTS_KEY, order=order)
        .values_list("version_id", flat=True)
        .order_by()
    )
    return sorted(version_ids - built)


def score_array_missing(*, dataset: Dataset, order: str | None = None) -> list[int]:
    """The dataset's current versions whose score arrays are missing or of another document
    order (those a build would build).

    Args:
        dataset: the dataset.
        order: the digest of its documents in order, if already known.

    Returns:
        Their ids, sorted.
    """
    if order is None:
        order = score_array_documents(dataset=dataset)[1]
    current = [v.pk for v in output_version_current_list(dataset=dataset)]
    return score_arrays_lacking(current, order)


@dataclass(frozen=True)
class ArrayRead:
    """What the score arrays hold for some versions: their columns and coverage.

    Versions missing from ``covered`` have no arrays for the documents' current order; their
    scores are read from the rows. A built version without a key has no value for it.
    """

    columns: dict[int, dict[str, ScoreColumn]]  # version id -> key -> column
    covered: dict[int, frozenset[int]]  # version id -> documents it has outputs for


# No arrays: every version read from its rows.
NO_ARRAYS = ArrayRead(columns={}, covered={})


class ScoreArrayGone(LookupError):
    """A score array read a moment ago is gone: a score write dropped it (or a build replaced
    it) since. The caller reads the rows instead."""


class _KeyValues:
    """The full arrays of one key, read for every version in one query when first needed."""

    def __init__(self, pks: dict[int, int]) -> None:
        self._pks = pks  # version id -> array pk
        self._values: dict | None = None

    def __call__(self, version_id: int) -> np.ndarray:
        if self._values is None:
            self._values = dict(
                ScoreArray.objects.filter(pk__in=list(self._pks.values())).values_list(
                    "version_id", "values"
                )
            )
        if version_id not in self._values:
            raise ScoreArrayGone(f"the score array of version {version_id} was dropped")
        return np.frombuffer(self._values[version_id], dtype="<f8")


def score_array_map(
    *, dataset: Dataset, version_ids: Iterable[int], keys: Iterable[str]
) -> ArrayRead:
    """The current score arrays of some versions, as the leaderboard's columns.

    Only the arrays' sizes and stored intervals are read here. A column over every document
    reads its values when a figure first needs them, in one query for all versions of its key
    (:class:`ScoreArrayGone` if a write dropped them meanwhile); columns over fewer documents
    are read now (their documents are the values present).

    Args:
        dataset: the versions' dataset.
        version_ids: the output versions.
        keys: the metric keys wanted (``far@3``, ``rouge1_f``, ...).

    Returns:
        An :class:`ArrayRead`.
    """
    ids, order = score_array_documents(dataset=dataset)
    n = len(ids)
    rows = ScoreArray.objects.filter(
        version_id__in=list(version_ids), order=order, key__in=[OUTPUTS_KEY, *keys]
    ).order_by()
    meta = list(rows.values_list("pk", "version_id", "key", "count", "cells"))
    partial_values = dict(
        rows.filter(count__lt=n).values_list("pk", "values") if any(m[3] < n for m in meta) else ()
    )
    every = ColumnDocuments(ids)
    shared: dict[bytes, ColumnDocuments] = {}
    loaders: dict[str, dict[int, int]] = {}
    for pk, version_id, key, count, _ in meta:
        if count == n and key != OUTPUTS_KEY:
            loaders.setdefault(key, {})[version_id] = pk
    loaders = {key: _KeyValues(pks) for key, pks in loaders.items()}
    columns: dict[int, dict[str, ScoreColumn]] = {}
    covered: dict[int, frozenset[int]] = {}
    # A version whose arrays a write dropped since the first read is read from its rows.
    gone = {
        version_id for pk, version_id, _, count, _ in meta if count < n and pk not in partial_values
    }
    for pk, version_id, key, count, cells in meta:
        if version_id in gone:
            continue
        if count == n:
            documents, values = every, None
        else:
            dense = np.frombuffer(partial_values[pk], dtype="<f8")
            present = ~np.isnan(dense)
            mask = present.tobytes()
            if mask not in shared:
                shared[mask] = ColumnDocuments(np.asarray(ids, dtype=np.int64)[present].tolist())
            documents, values = shared[mask], dense[present]
        if key == OUTPUTS_KEY:
            covered[version_id] = documents.set
            continue
        if values is None:
            values = partial(loaders[key], version_id)
        columns.setdefault(version_id, {})[key] = ScoreColumn(documents, values, cells)
    return ArrayRead(
        columns={v: c for v, c in columns.items() if v in covered},
        covered=covered,
    )
