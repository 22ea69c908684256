"""Cloze questions from a reference summary: each entity of a sentence masked by a placeholder."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .entities import DEFAULT_LABELS, Entity, normalize_entity, select_entities
from .errors import ApesError, PlaceholderInTextError

# The CNN/Daily Mail cloze data's (Hermann et al., 2015) and the released code's token.
DEFAULT_PLACEHOLDER = "@placeholder"

# A sentence ends after . ! or ? (and any closing quotes or brackets) followed by whitespace.
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+")


@dataclass(frozen=True)
class ClozeQuestion:
    """One cloze question: a reference sentence with one entity masked.

    Attributes:
        text: the sentence with every mention of the entity replaced by the placeholder.
        answer: the gold entity's surface text (its first mention in the sentence).
        answer_key: :func:`~.entities.normalize_entity` of ``answer``; answers are judged by it.
        label: the gold entity's label.
        mentions: the masked mentions, offsets in the reference.
        sentence: ``(start, end)`` of the sentence in the reference.
        context_keys: normalised keys of the sentence's other entities, left as text.
        placeholder: the placeholder token used in ``text``.
    """

    text: str
    answer: str
    answer_key: str
    label: str
    mentions: tuple[Entity, ...]
    sentence: tuple[int, int]
    context_keys: tuple[str, ...]
    placeholder: str = DEFAULT_PLACEHOLDER


def split_sentences(text: str) -> tuple[tuple[int, int], ...]:
    """A plain sentence splitter: a break after ``.``, ``!`` or ``?`` followed by whitespace.

    Args:
        text: the text to split.

    Returns:
        ``(start, end)`` of each sentence, surrounding whitespace excluded; ``()`` for blank text.

    Raises:
        Nothing.
    """
    spans = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        spans.append((start, match.start() + len(match.group(0).rstrip())))
        start = match.end()
    spans.append((start, len(text)))
    return tuple(_strip(text, s, e) for s, e in spans if text[s:e].strip())


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _check_sentences(text: str, sentences: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    spans = sorted((int(s), int(e)) for s, e in sentences)
    previous_end = 0
    for start, end in spans:
        if start < previous_end or end <= start or end > len(text):
            raise ApesError(
                f"sentence span ({start}, {end}) is empty, overlaps another or ends past the "
                f"text ({len(text)} characters)"
            )
        previous_end = end
    return spans


def _merge_crossed(
    spans: list[tuple[int, int]], entities: Sequence[Entity]
) -> list[tuple[int, int]]:
    """Join consecutive sentences an entity crosses (``"U.S. Army"`` split after ``U.S.``)."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and any(e.start < merged[-1][1] and e.end > start for e in entities):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def make_questions(
    reference: str,
    entities: Iterable[Entity],
    *,
    placeholder: str = DEFAULT_PLACEHOLDER,
    labels: frozenset[str] | None = DEFAULT_LABELS,
    sentences: Iterable[tuple[int, int]] | None = None,
) -> tuple[ClozeQuestion, ...]:
    """The cloze questions of one reference summary.

    The entities are first filtered by :func:`~.entities.select_entities` (kept labels, no
    one-character spans, overlaps resolved to the longest mention). Then, sentence by sentence,
    each distinct entity (by normalised text) of the sentence gives one question: the sentence
    with *every* mention of that entity in it replaced by ``placeholder``, so the answer never
    stays in its own question. A mention repeated in another sentence gives another question.
    This is the released code's convention (one question per entity per sentence); other
    entities stay as text (the released code anonymised them as ``@entityN``).

    Args:
        reference: the reference summary.
        entities: its entity mentions (from an :class:`~.entities.EntityRecognizer`).
        placeholder: the token that replaces the answer.
        labels: the entity labels questions are asked about; ``None`` for all.
        sentences: ``(start, end)`` sentence spans (e.g. the recogniser's); default
            :func:`split_sentences`. Sentences an entity crosses are joined.

    Returns:
        The questions in reading order (sentence, then first mention); ``()`` when the
        reference has no kept entity.

    Raises:
        EntitySpanError: an entity is not a span of ``reference``.
        PlaceholderInTextError: ``reference`` already contains ``placeholder``.
        ApesError: ``placeholder`` is blank, or a sentence span is invalid.
    """
    if not placeholder.strip():
        raise ApesError("the placeholder must not be blank")
    if placeholder in reference:
        raise PlaceholderInTextError(placeholder)
    kept = select_entities(reference, entities, labels=labels)
    spans = split_sentences(reference) if sentences is None else sentences
    spans = _merge_crossed(_check_sentences(reference, spans), kept)
    questions = []
    for start, end in spans:
        inside = [e for e in kept if e.start >= start and e.end <= end]
        keys = list(dict.fromkeys(normalize_entity(e.text) for e in inside))
        for key in keys:
            masked = tuple(e for e in inside if normalize_entity(e.text) == key)
            questions.append(
                ClozeQuestion(
                    text=_mask(reference, start, end, masked, placeholder),
                    answer=masked[0].text,
                    answer_key=key,
                    label=masked[0].label,
                    mentions=masked,
                    sentence=(start, end),
                    context_keys=tuple(k for k in keys if k != key),
                    placeholder=placeholder,
                )
            )
    return tuple(questions)


def _mask(text: str, start: int, end: int, mentions: Sequence[Entity], placeholder: str) -> str:
    parts = []
    position = start
    for mention in mentions:
        parts.append(text[position : mention.start])
        parts.append(placeholder)
        position = mention.end
    parts.append(text[position:end])
    return "".join(parts)
