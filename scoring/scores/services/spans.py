"""Span-derived scores of a chunk's outputs: PolyTope per annotated output, its breakdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from annotation.systems.models import SystemOutput
from scoring.metrics.errors import MetricsError
from scoring.metrics.leaderboard import POLYTOPE_METRICS, polytope_document
from scoring.metrics.spans import join_sentences

from ..models import DocumentScore, ErrorBreakdown, ScoringJob
from ..selectors import POLYTOPE_SCHEME, scoring_span_map

# Every metric a span-scoring pass writes (and deletes when it no longer applies).
SPAN_KEYS = frozenset(POLYTOPE_METRICS)


@dataclass
class SpanRows:
    """What a chunk's span scoring upserts: scores, breakdowns, and the outputs it scored."""

    scores: list[DocumentScore] = field(default_factory=list)
    breakdowns: list[ErrorBreakdown] = field(default_factory=list)
    values: dict[int, set[str]] = field(default_factory=dict)  # output id -> metrics written


def span_rows_compute(*, job: ScoringJob, outputs: Sequence[SystemOutput]) -> SpanRows:
    """PolyTope for every output of ``outputs`` that has a scored annotation.

    Per annotated output: the segment score in percent, its penalty, its word count (over the
    output's sentences joined by one space) and its critical, major and minor errors as
    DocumentScore rows, and its errors by subtype and label as an ErrorBreakdown row. Outputs
    nobody annotated get nothing ("not annotated" is not "clean").

    Args:
        job: the scoring job (recorded on the rows).
        outputs: the chunk's outputs.

    Returns:
        The rows to upsert, and per output the metrics written.

    Raises:
        MetricsError: an annotated output whose summary has no word, or an error that is not a
            PolyTope error; the message names the output's document and system.
    """
    found = SpanRows()
    annotations = scoring_span_map(output_ids=[o.pk for o in outputs], scheme=POLYTOPE_SCHEME)
    for output in outputs:
        annotation = annotations.get(output.pk)
        if annotation is None:
            continue
        try:
            document = polytope_document(join_sentences(output.sentences), annotation.errors)
        except MetricsError as error:
            raise MetricsError(
                f"PolyTope of document {output.document.external_id!r}, system output "
                f"{output.pk} (annotation set {annotation.annotation_set.slug!r}): {error}"
            ) from error
        values = document.values()
        found.values[output.pk] = set(values)
        found.scores.extend(
            DocumentScore(
                version_id=output.version_id,
                document_id=output.document_id,
                metric=metric,
                value=value,
                job=job,
            )
            for metric, value in values.items()
        )
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
    return found
