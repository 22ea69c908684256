"""Word-level faithfulness of a summary from several annotators' hallucinated spans (Maynez et al.).

The XSum hallucination release defines it so (its README, "Precomputed scores"): map each
annotator's spans to word level, score each word 1.0 when it is not in one of that annotator's
spans, and average over the annotators and the summary's words. A word here is a run of
non-white-space characters of the summary (its ``str.split()`` tokens, punctuation attached).
Spans are character offsets ``[start, end)`` into the summary, end exclusive.

When is a word "in" a span? The README does not say for a span that covers part of a word, so
there are two rules:

* ``RULE_INSIDE`` (``"inside"``, the default): a word is hallucinated only when one span holds
  all of it. This is the release's rule: its ``Faithful`` column agrees with it on 1,916 of the
  1,992 summaries it scores (every other one has a named reason, see the README's data section).
* ``RULE_OVERLAP`` (``"overlap"``, an option): a word is hallucinated when any span touches it
  (shares a character with it): a span "24" marks the word "24-year-old", and a span that leaves
  out a word's full stop still marks the word. Loupe's first reading, and its default until the
  comparison with the release; it agrees with the release on 664 of those summaries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import MetricsError

_WORD = re.compile(r"\S+")

RULE_INSIDE = "inside"  # a span holds the whole word: the release's rule
RULE_OVERLAP = "overlap"  # any span touches the word (shares a character with it)
DEFAULT_RULE = RULE_INSIDE
RULES = (RULE_INSIDE, RULE_OVERLAP)
#: One line per rule, for the command-line help and the documentation.
RULE_DESCRIPTIONS = {
    RULE_INSIDE: "a word is hallucinated only when one span holds all of it (the XSum "
    "release's rule, the default)",
    RULE_OVERLAP: "a word is hallucinated when any span touches it, even by one character",
}


class FaithfulnessError(MetricsError):
    """Input the faithfulness score is not defined for: no words, no annotators, a bad span."""


@dataclass(frozen=True)
class Faithfulness:
    """One summary's faithfulness.

    ``score`` is the mean of ``per_annotator``; each of those is the share of the summary's
    ``words`` that the annotator left outside every span. ``hallucinated`` counts, per
    annotator, the words inside at least one span.
    """

    score: float
    words: int
    per_annotator: tuple[float, ...]
    hallucinated: tuple[int, ...]


def summary_words(summary: str) -> tuple[tuple[int, int], ...]:
    """The summary's words as character extents.

    Args:
        summary: the summary text.

    Returns:
        ``(start, end)`` (end exclusive) of every run of non-white-space characters, in order;
        empty for an empty or blank summary.
    """
    return tuple(match.span() for match in _WORD.finditer(summary))


def _check_span(span: object, length: int, annotator: int) -> tuple[int, int]:
    if not isinstance(span, Sequence) or isinstance(span, str | bytes) or len(span) != 2:
        raise FaithfulnessError(
            f"annotator {annotator + 1}: a span is a (start, end) pair, got {span!r}"
        )
    start, end = span
    for value in (start, end):
        if not isinstance(value, int) or isinstance(value, bool):
            raise FaithfulnessError(
                f"annotator {annotator + 1}: span offsets must be whole numbers, got {span!r}"
            )
    if not 0 <= start < end <= length:
        raise FaithfulnessError(
            f"annotator {annotator + 1}: span [{start}, {end}) is outside the summary "
            f"(valid: 0 <= start < end <= {length})"
        )
    return start, end


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise FaithfulnessError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")


def hallucinated_words(
    words: Sequence[tuple[int, int]],
    spans: Sequence[tuple[int, int]],
    rule: str = DEFAULT_RULE,
) -> frozenset[int]:
    """Which words a set of spans marks.

    Args:
        words: the words' ``(start, end)`` extents (from :func:`summary_words`).
        spans: character spans ``(start, end)``, end exclusive, already checked.
        rule: ``inside`` (a word a span holds whole; the default) or ``overlap`` (a word
            sharing a character with a span).

    Returns:
        The indexes of the words the spans mark.

    Raises:
        FaithfulnessError: for an unknown rule.
    """
    _check_rule(rule)
    if rule == RULE_INSIDE:
        return frozenset(
            index
            for index, (word_start, word_end) in enumerate(words)
            if any(start <= word_start and word_end <= end for start, end in spans)
        )
    return frozenset(
        index
        for index, (word_start, word_end) in enumerate(words)
        if any(start < word_end and word_start < end for start, end in spans)
    )


def faithfulness_detail(
    summary: str,
    spans_per_annotator: Sequence[Sequence[tuple[int, int]]],
    rule: str = DEFAULT_RULE,
) -> Faithfulness:
    """A summary's faithfulness with its parts (see the module docstring for the definition).

    Args:
        summary: the summary text the spans index.
        spans_per_annotator: one entry per annotator, each that annotator's spans as
            ``(start, end)`` character offsets, end exclusive; an annotator who marked nothing
            has an empty entry and scores 1.0.
        rule: when a word is in a span: ``inside`` (the release's rule, the default) or
            ``overlap`` (any span touching it).

    Returns:
        The score, the word count, and each annotator's share and count.

    Raises:
        FaithfulnessError: for a summary without words, no annotators, a span that is not a
            pair of whole numbers with ``0 <= start < end <= len(summary)``, or an unknown rule.
    """
    _check_rule(rule)
    words = summary_words(summary)
    if not words:
        raise FaithfulnessError("the summary has no words, so its faithfulness is undefined")
    if isinstance(spans_per_annotator, str | bytes) or not len(spans_per_annotator):
        raise FaithfulnessError("faithfulness needs at least one annotator's spans")
    shares: list[float] = []
    counts: list[int] = []
    for annotator, spans in enumerate(spans_per_annotator):
        if isinstance(spans, str | bytes) or not isinstance(spans, Sequence):
            raise FaithfulnessError(f"annotator {annotator + 1}: spans must be a list")
        checked = [_check_span(span, len(summary), annotator) for span in spans]
        marked = len(hallucinated_words(words, checked, rule))
        counts.append(marked)
        shares.append((len(words) - marked) / len(words))
    return Faithfulness(
        score=sum(shares) / len(shares),
        words=len(words),
        per_annotator=tuple(shares),
        hallucinated=tuple(counts),
    )


def faithfulness(
    summary: str,
    spans_per_annotator: Sequence[Sequence[tuple[int, int]]],
    rule: str = DEFAULT_RULE,
) -> float:
    """A summary's faithfulness in [0, 1]: 1.0 when no annotator marked any of its words.

    Args:
        summary: the summary text the spans index.
        spans_per_annotator: one entry per annotator (the release has three), each a sequence
            of ``(start, end)`` character spans, end exclusive.
        rule: when a word is in a span: ``inside`` (the release's rule, the default) or
            ``overlap`` (any span touching it).

    Returns:
        The mean over annotators of the share of words outside that annotator's spans.

    Raises:
        FaithfulnessError: as :func:`faithfulness_detail`.
    """
    return faithfulness_detail(summary, spans_per_annotator, rule).score
