"""Scoring chunks: split a job's outputs, then score a chunk and upsert its rows."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from annotation.fams.models import AnnotationSetKind
from annotation.jobs.kernel import job_chunk_done
from annotation.spans.models import SpanAnnotation
from annotation.systems.models import SystemOutput
from scoring.metrics.fam import validate_fam
from scoring.metrics.leaderboard import (
    FAR_MEASURES,
    POLYTOPE,
    far_key,
    outputs_rouge,
    score_output,
)
from scoring.metrics.rouge import ALL_ROUGE_KEYS, RougeConfig

from ..models import DocumentScore, ErrorBreakdown, JobTrigger, ScoringChunk, ScoringJob
from ..selectors import (
    POLYTOPE_SCHEME,
    ChunkOutput,
    rouge_config_get,
    scoring_chunk_outputs,
    scoring_fam_rows,
    scoring_reference_texts,
)
from .spans import SPAN_KEYS, span_rows_compute
from .store import (
    OutputScores,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
    pairs_q,
)


def scoring_chunks_create(job: ScoringJob, chunk_size: int | None = None) -> None:
    """The scoring kind's plan: split the job's outputs into chunks (the kernel calls it once,
    under the job's lock, and marks the job running).

    Args:
        job: the job (locked).
        chunk_size: outputs per chunk (default ``settings.LOUPE_SCORING_CHUNK``).
    """
    size = chunk_size or settings.LOUPE_SCORING_CHUNK
    outputs = SystemOutput.objects.filter(version__in=job.versions.all())
    if job.trigger == JobTrigger.SPANS:
        # Only span-derived scores are recomputed: the outputs with span annotations, and
        # those with such scores to remove. Chosen when the job runs, so one queued job
        # still covers every change of a burst.
        span_scored = DocumentScore.objects.filter(
            version_id=OuterRef("version_id"),
            document_id=OuterRef("document_id"),
            metrics__has_any_keys=sorted(SPAN_KEYS),
        )
        outputs = outputs.filter(
            Exists(SpanAnnotation.objects.filter(output_id=OuterRef("pk"))) | Exists(span_scored)
        )
    # Document-major: a chunk holds every version's output of a few documents, so their
    # references and FAMs are read and checked once for all the versions (for one version,
    # this is its outputs in document order).
    ids = list(
        outputs.order_by("document__position", "document_id", "version_id").values_list(
            "pk", flat=True
        )
    )
    ScoringChunk.objects.bulk_create(
        ScoringChunk(job=job, index=n, output_ids=ids[start : start + size])
        for n, start in enumerate(range(0, len(ids), size))
    )
    job.outputs_total = len(ids)


def _fams(dataset, outputs: list[ChunkOutput], references: dict[int, dict[int, list[str]]]):
    """Each document's scoring FAM and its validated form; the sentence and facet counts come
    from the rows already read, so neither documents nor references are read again."""
    n_sentences = {o.document_id: o.sentence_count for o in outputs}
    facets = {rid: len(s) for texts in references.values() for rid, s in texts.items()}
    fams = {}
    chosen = scoring_fam_rows(dataset=dataset, document_ids=n_sentences)
    for document_id, fam in chosen.items():
        fams[document_id] = (
            fam,
            validate_fam(
                [facet["groups"] for facet in fam.facets],
                n_sentences=n_sentences[document_id],
                n_facets=facets[fam.reference_id],
                allow_duplicate_groups=fam.kind == AnnotationSetKind.RELEASED,
            ),
        )
    return fams


def _automatic_rows(
    job, outputs: list[ChunkOutput], keys, stale: StaleScores, rouge: RougeConfig
) -> list[OutputScores]:
    """ROUGE (the dataset's configuration) and the FAR family of each output, one entry per
    output; the metrics among ``keys`` it no longer has are added to ``stale``."""
    texts = scoring_reference_texts(document_ids={o.document_id for o in outputs})
    fams = _fams(job.dataset, outputs, texts)
    references = []
    for output in outputs:
        first = next(iter(texts.get(output.document_id, {}).values()), None)
        references.append(first)
    # ROUGE of the whole chunk in one batch; FAR per output.
    pairs = outputs_rouge(list(zip(references, (o.sentences for o in outputs), strict=True)), rouge)
    rows = []
    job_id = job.pk
    for output, reference, pair in zip(outputs, references, pairs, strict=True):
        version_id, document_id = output.version_id, output.document_id
        fam, valid = fams.get(document_id, (None, None))
        result = score_output(
            summary=output.sentences,
            reference=reference,
            extracted=output.extracted,
            fam=valid,
            ks=job.ks,
            document=output.external_id,
            rouge=pair,
            rouge_config=rouge,
        )
        values = {metric: min(1.0, max(0.0, value)) for metric, value in result.values.items()}
        far = fam is not None and any("@" in metric for metric in values)
        rows.append(OutputScores(version_id, document_id, values, fam.pk if far else None, job_id))
        stale.add(version_id=version_id, document_id=document_id, metrics=keys - values.keys())
    return rows


class _RougeChanged(Exception):
    """The dataset's ROUGE settings changed while a chunk computed with the old ones."""


def scoring_chunk_compute(*, chunk: ScoringChunk) -> int:
    """Score a chunk's outputs and upsert the scores (idempotent: recompute and overwrite).

    Every applicable metric is recomputed; a stale score that no longer applies (say, FAR after
    the document's FAM lost its support, PolyTope after an output's annotation was removed, or
    a ROUGE key the dataset's settings no longer ask for) is deleted. ROUGE is computed with
    the dataset's settings as they are when the chunk runs; if they change before its scores
    are written, the chunk computes again with the new ones (so a chunk of an older job never
    writes the old ROUGE over a newer job's). A job triggered by span changes (``spans``)
    recomputes only the span-derived scores. The chunk is marked done, and the job's counters
    advance, only the first time.

    Args:
        chunk: the chunk.

    Returns:
        How many scores were written.

    Raises:
        MetricsError: an output the metrics refuse (the message names it).
    """
    while True:
        try:
            return _chunk_compute(chunk)
        except _RougeChanged:
            continue


def _chunk_compute(chunk: ScoringChunk) -> int:
    """One try of :func:`scoring_chunk_compute`: compute, then write unless ROUGE changed."""
    job = chunk.job
    automatic = job.trigger != JobTrigger.SPANS
    outputs = scoring_chunk_outputs(output_ids=chunk.output_ids)
    computed, stale = [], StaleScores()
    rouge, revision = rouge_config_get(dataset=job.dataset)
    if automatic:
        keys = set(ALL_ROUGE_KEYS) | {far_key(m, k) for m in FAR_MEASURES for k in job.ks}
        computed = _automatic_rows(job, outputs, keys, stale, rouge)
    spans = span_rows_compute(job=job, outputs=outputs)
    # Span-derived rows that no longer apply (the annotation was removed) go, as do the
    # breakdowns of outputs PolyTope no longer scores.
    unscored: dict[int, list[int]] = defaultdict(list)  # version -> documents
    for output in outputs:
        written = spans.written.get(output.pk, set())
        stale.add(
            version_id=output.version_id,
            document_id=output.document_id,
            metrics=SPAN_KEYS - written,
        )
        if POLYTOPE not in written:
            unscored[output.version_id].append(output.document_id)
    with transaction.atomic():
        # The outputs written without a stale metric to remove are struck from ``stale`` (a
        # fresh chunk's, every one), so the delete reads only the rows it changes.
        written = document_scores_upsert(rows=spans.scores, outputs=computed, stale=stale)
        # Read after the upsert, whose row locks a newer job's write of the same outputs waits
        # for: a change committed before this read is seen here, one committed after it is
        # followed by a job whose chunks write after this one.
        if automatic and rouge_config_get(dataset=job.dataset)[1] != revision:
            raise _RougeChanged
        ErrorBreakdown.objects.bulk_create(
            spans.breakdowns,
            batch_size=2000,
            update_conflicts=True,
            unique_fields=["version", "document", "scheme"],
            update_fields=["annotation_set", "counts", "job", "computed_at"],
        )
        document_scores_delete(stale=stale)
        # Most versions have no breakdown at all: one look by version spares the statement
        # over every (version, document) pair.
        breakdowns = ErrorBreakdown.objects.filter(scheme=POLYTOPE_SCHEME)
        if unscored and breakdowns.filter(version_id__in=list(unscored)).exists():
            breakdowns.filter(pairs_q(unscored)).delete()
        job_chunk_done(
            chunk=chunk, chunk_fields={"scores_written": written}, scores_written=written
        )
    return written
