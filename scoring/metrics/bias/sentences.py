"""Sentence fusion and the position of supporting content, from the greedy fragments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import BiasError, TokensError
from .fragments import check_tokens, greedy_checked, token_positions

# A fragment shorter than this many tokens (a shared "the", "of the") is not taken as support.
DEFAULT_MIN_FRAGMENT_LENGTH = 3

# Fusion as in the issue: a summary sentence made from two or three document sentences.
FUSION_SOURCES = (2, 3)


@dataclass(frozen=True)
class SentenceSupport:
    """Where each summary sentence's content comes from in the document.

    ``sources[i]`` holds the (sorted) indices of the document sentences that the fragments of
    summary sentence ``i`` (of at least ``min_fragment_length`` tokens) are copied from; a
    fragment crossing a sentence boundary counts for every sentence it touches.
    ``copied_from`` gives, for every copied summary token (in summary order), the index of the
    document sentence it is copied from; ``positions`` turns each into the relative position
    ``index / number of document sentences``, in [0, 1).
    """

    sources: tuple[tuple[int, ...], ...]
    copied_from: tuple[int, ...]
    n_document_sentences: int
    min_fragment_length: int

    @property
    def positions(self) -> tuple[float, ...]:
        """Relative position of the sentence each copied token comes from, in [0, 1)."""
        return tuple(index / self.n_document_sentences for index in self.copied_from)

    @property
    def fusion(self) -> float | None:
        """Share of summary sentences with 2 or 3 source sentences (None without sentences)."""
        if not self.sources:
            return None
        fused = sum(len(indices) in FUSION_SOURCES for indices in self.sources)
        return fused / len(self.sources)

    @property
    def source_counts(self) -> tuple[int, int, int, int, int]:
        """How many summary sentences have 0, 1, 2, 3 and more than 3 source sentences."""
        counts = [0] * 5
        for indices in self.sources:
            counts[min(len(indices), 4)] += 1
        return tuple(counts)  # type: ignore[return-value]

    @property
    def mean_position(self) -> float | None:
        """Mean relative position of the copied tokens (None when nothing is copied)."""
        return sum(self.positions) / len(self.positions) if self.positions else None


def check_min_fragment_length(value: object) -> int:
    """Check ``min_fragment_length``: a positive integer.

    Args:
        value: the value given.

    Returns:
        The value.

    Raises:
        BiasError: it is not a positive integer.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BiasError(f"min_fragment_length must be a positive integer, got {value!r}")
    return value


def check_sentences(sentences: Sequence[Sequence[str]], what: str) -> tuple[tuple[str, ...], ...]:
    """Check a list of tokenized sentences and return it as a tuple of tuples.

    Args:
        sentences: one token list per sentence.
        what: the name used in error messages.

    Returns:
        The sentences as a tuple of token tuples.

    Raises:
        TokensError: not a list of token lists.
    """
    if isinstance(sentences, str | bytes):
        raise TokensError(f"{what} must be a list of token lists, not a single string")
    return tuple(check_tokens(tokens, f"{what}[{i}]") for i, tokens in enumerate(sentences))


def sentence_support(
    summary_sentences: Sequence[Sequence[str]],
    document_sentences: Sequence[Sequence[str]],
    *,
    min_fragment_length: int = DEFAULT_MIN_FRAGMENT_LENGTH,
    positions: dict[str, list[int]] | None = None,
) -> SentenceSupport:
    """Source sentences of each summary sentence and positions of the copied content.

    Each summary sentence is matched on its own against the whole document (the document's
    sentences concatenated) by :func:`greedy_fragments`; only fragments of at least
    ``min_fragment_length`` tokens count as support.

    Args:
        summary_sentences: the summary, one token list per sentence.
        document_sentences: the document, one token list per sentence.
        min_fragment_length: the shortest fragment taken as support (3 by default).
        positions: :func:`token_positions` of the concatenated document, if the caller has it.

    Returns:
        The pair's :class:`SentenceSupport`.

    Raises:
        TokensError: a sentence is not a list of ``str`` tokens.
        BiasError: ``min_fragment_length`` is not a positive integer.
    """
    check_min_fragment_length(min_fragment_length)
    summary = check_sentences(summary_sentences, "summary_sentences")
    document = check_sentences(document_sentences, "document_sentences")
    flat = tuple(token for sentence in document for token in sentence)
    owner = tuple(index for index, sentence in enumerate(document) for _ in sentence)
    if positions is None:
        positions = token_positions(flat)
    return support_of(summary, flat, owner, positions, len(document), min_fragment_length)


def support_of(
    summary: Sequence[tuple[str, ...]],
    flat: tuple[str, ...],
    owner: tuple[int, ...],
    positions: dict[str, list[int]],
    n_sentences: int,
    min_fragment_length: int,
) -> SentenceSupport:
    """:func:`sentence_support` on inputs already checked and indexed (a prepared document).

    Args:
        summary: the summary's checked sentences.
        flat: the document's tokens.
        owner: the document sentence of each token of ``flat``.
        positions: ``token_positions(flat)``.
        n_sentences: the document's sentences.
        min_fragment_length: a checked positive integer.

    Returns:
        The pair's :class:`SentenceSupport`.
    """
    sources: list[tuple[int, ...]] = []
    copied_from: list[int] = []
    for sentence in summary:
        indices: set[int] = set()
        for fragment in greedy_checked(sentence, flat, positions):
            if fragment.length < min_fragment_length:
                continue
            start = fragment.document_start
            touched = owner[start : start + fragment.length]
            indices.update(touched)
            copied_from.extend(touched)
        sources.append(tuple(sorted(indices)))
    return SentenceSupport(tuple(sources), tuple(copied_from), n_sentences, min_fragment_length)
