"""Span-derived scores of a chunk's outputs: PolyTope with its breakdown, XSum faithfulness."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from scoring.metrics.errors import MetricsError
from scoring.metrics.leaderboard import FAITHFULNESS, POLYTOPE_METRICS, polytope_document
from scoring.metrics.spans import DEFAULT_RULE, SIDE_SUMMARY, faithfulness, join_sentences

from ..models import ErrorBreakdown, ScoringJob
from ..selectors import (
    POLYTOPE_SCHEME,
    ChunkOutput,
    scoring_judged_spans,
    scoring_span_map,
    scoring_spans_exist,
)
from .store import ScoreRow

XSUM_SCHEME = "xsum-hallucinations"
# Every metric a span-scoring pass writes (and deletes where it no longer applies).
SPAN_KEYS = frozenset((*POLYTOPE_METRICS, FAITHFULNESS))


@dataclass
class SpanRows:
    """What a chunk's span scoring upserts: scores, breakdowns, and per output what it wrote."""

    scores: list[ScoreRow] = field(default_factory=list)
    breakdowns: list[ErrorBreakdown] = field(default_factory=list)
    written: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add(self, output: ChunkOutput, values: dict[str, float], job: ScoringJob) -> None:
        """Queue one output's values for its DocumentScore row."""
        self.written[output.pk] |= set(values)
        self.scores.extend(
            ScoreRow(output.version_id, output.document_id, metric, value, None, job.pk)
            for metric, value in values.items()
        )


def _named(output: ChunkOutput, what: str, error: MetricsError) -> MetricsError:
    return MetricsError(
        f"{what} of document {output.external_id!r}, system output {output.pk}: {error}"
    )


def _polytope(found: SpanRows, job: ScoringJob, outputs: Sequence[ChunkOutput]) -> None:
    annotations = scoring_span_map(output_ids=[o.pk for o in outputs], scheme=POLYTOPE_SCHEME)
    for output in outputs:
        annotation = annotations.get(output.pk)
        if annotation is None:
            continue
        try:
            # The text annotated: a workbook's Target where it is not the stored summary.
            summary = annotation.annotated_text or join_sentences(output.sentences)
            document = polytope_document(summary, annotation.errors)
        except MetricsError as error:
            where = f"PolyTope (annotation set {annotation.annotation_set.slug!r})"
            raise _named(output, where, error) from error
        found.add(output, document.values(), job)
        found.breakdowns.append(
            ErrorBreakdown(
                version_id=output.version_id,
                document_id=output.document_id,
                scheme=POLYTOPE_SCHEME,
                annotation_set=annotation.annotation_set,
                counts=document.counts(),
                job=job,
            )
        )


def _faithfulness(found: SpanRows, job: ScoringJob, outputs: Sequence[ChunkOutput]) -> None:
    judged = scoring_judged_spans(output_ids=[o.pk for o in outputs], scheme=XSUM_SCHEME)
    for output in outputs:
        annotators = judged.get(output.pk)
        if not annotators:
            continue
        spans = [
            [(e["start"], e["end"]) for e in errors if e.get("side") == SIDE_SUMMARY]
            for errors in annotators
        ]
        try:
            value = faithfulness(join_sentences(output.sentences), spans, DEFAULT_RULE)
        except MetricsError as error:
            raise _named(output, "Faithfulness", error) from error
        found.add(output, {FAITHFULNESS: value}, job)


def span_rows_compute(*, job: ScoringJob, outputs: Sequence[ChunkOutput]) -> SpanRows:
    """The span-derived scores of ``outputs``, from the annotations that score them.

    * **PolyTope**, for every output with a released or gold annotation (gold wins): the
      segment score in percent, its penalty, its word count (over the text annotated: the
      output's sentences joined by one space, or the annotation's ``annotated_text``) and its
      critical, major and minor errors as DocumentScore values, and its errors by subtype and
      label as an ErrorBreakdown row.
    * **Faithfulness** (XSum hallucinations, Maynez et al. 2020), for every output judged in a
      set of that scheme: the share of the summary's words outside each annotator's spans,
      averaged over the annotators (each set, and each annotator within a set, is one), under
      the release's rule (``DEFAULT_RULE``: a word counts as hallucinated when a span holds
      all of it). An error given without a span (only its words are known) marks no word.

    Outputs nobody annotated get nothing ("not annotated" is not "clean").

    Args:
        job: the scoring job (recorded on the rows).
        outputs: the chunk's outputs.

    Returns:
        The rows to upsert, and per output the metrics written.

    Raises:
        MetricsError: an annotated output whose summary has no word, or an error its scheme
            does not know; the message names the output's document.
    """
    found = SpanRows()
    # A dataset nobody annotated spans in (most of them) costs one query, not two per chunk
    # over every output id.
    if outputs and scoring_spans_exist(dataset=job.dataset):
        _polytope(found, job, outputs)
        _faithfulness(found, job, outputs)
    return found
