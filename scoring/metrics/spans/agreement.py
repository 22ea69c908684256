"""Marked errors as the agreement core's spans, and the one exact span F1 every page shows."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from ..agreement import Span, SpanMatching, span_f1
from .model import SIDE_NONE, SIDE_SOURCE

# A label for the core when the scheme has none (the core wants a non-empty name).
NO_LABEL = "-"
EXACT = SpanMatching("exact")

#: One item (system output): the length of the summary its offsets index, and per annotator
#: their errors (stored ``MarkedError`` dicts; empty for an output marked clean).
SpanItem = tuple[int, Mapping[Hashable, Sequence[Mapping]]]


def error_label(error: Mapping) -> str:
    """The label the agreement core gets for a marked error.

    Args:
        error: a stored ``MarkedError`` dict.

    Returns:
        The error's label, or :data:`NO_LABEL` when it has none.
    """
    return error.get("label") or NO_LABEL


def error_spans(
    errors: Sequence[Mapping], summary_length: int, label_of: Callable[[Mapping], str] = error_label
) -> list[Span]:
    """One annotator's errors on one output as the core's spans.

    Summary spans keep their offsets. Source spans (PolyTope Omissions) are shifted past the
    summary (``start + summary_length + 1``), so a source span can match only a source span.
    Errors marked nowhere (side ``none``, issue words only) have no offsets and are left out.

    Args:
        errors: stored ``MarkedError`` dicts.
        summary_length: characters of the summary the offsets index.
        label_of: the name the core gets as the span's label (default: the error's label, or
            :data:`NO_LABEL`); the subtype is the error's type.

    Returns:
        The spans, in the errors' order.
    """
    shift = summary_length + 1
    return [
        Span(
            error["start"] + (shift if error["side"] == SIDE_SOURCE else 0),
            error["end"] + (shift if error["side"] == SIDE_SOURCE else 0),
            error["type"],
            label_of(error),
        )
        for error in errors
        if error["side"] != SIDE_NONE
    ]


def span_f1_exact(items: Sequence[SpanItem]) -> float | None:
    """Exact span F1 pooled over items and annotator pairs: the agreement page's measure.

    Each item's spans (:func:`error_spans`) are paired one to one when they have the same
    offsets, whatever their type and label (type and label agreement are measured apart); the
    value is ``2 * matched / (spans of A + spans of B)`` with both counts summed over every
    item and pair (:func:`scoring.metrics.agreement.span_f1`, exact matching, overall level).

    Args:
        items: ``(summary length, {annotator: errors})`` per output.

    Returns:
        The F1 in [0, 1], or None when no item has two annotators or none of them marked a span
        with offsets.
    """
    documents = {
        index: {name: error_spans(errors, length) for name, errors in annotations.items()}
        for index, (length, annotations) in enumerate(items)
        if len(annotations) >= 2
    }
    if not documents:
        return None
    return span_f1(documents, matching=EXACT).overall.value
