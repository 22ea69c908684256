"""Grusky et al.'s (2018) greedy extractive fragments: coverage, density, compression, copy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import TokensError


@dataclass(frozen=True)
class Fragment:
    """One extractive fragment: ``length`` tokens shared from these two start positions."""

    summary_start: int
    document_start: int
    length: int


@dataclass(frozen=True)
class FragmentStats:
    """The extractive-fragment measures of one (document, summary) pair.

    ``coverage`` = sum |f| / |S|, ``density`` = sum |f|^2 / |S|, ``compression`` = |D| / |S|;
    as in newsroom, each is 0.0 when the summary has no token. ``copy_length`` is the mean
    fragment length (0.0 without fragments), ``max_copy_length`` the longest fragment's.
    """

    fragments: tuple[Fragment, ...]
    summary_length: int
    document_length: int
    coverage: float
    density: float
    compression: float
    copy_length: float
    max_copy_length: int


def check_tokens(tokens: Sequence[str], what: str) -> tuple[str, ...]:
    """Check one token list and return it as a tuple.

    Args:
        tokens: a sequence of ``str`` tokens.
        what: the name used in the error message.

    Returns:
        The tokens as a tuple.

    Raises:
        TokensError: ``tokens`` is a single string/bytes, not a sequence, or holds a non-``str``.
    """
    if isinstance(tokens, str | bytes):
        raise TokensError(f"{what} must be a list of tokens, not a single {type(tokens).__name__}")
    try:
        tokens = tuple(tokens)
    except TypeError:
        raise TokensError(f"{what} must be a list of tokens, got {type(tokens).__name__}") from None
    if set(map(type, tokens)) <= {str}:  # the common case, checked in C
        return tokens
    for index, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TokensError(f"{what}[{index}] must be a str, got {type(token).__name__}")
    return tokens


def token_positions(document: Sequence[str]) -> dict[str, list[int]]:
    """Where each token occurs in a document: token -> its positions, ascending.

    Args:
        document: the document's tokens (already checked).

    Returns:
        The index :func:`greedy_fragments` scans instead of the whole document.
    """
    positions: dict[str, list[int]] = {}
    for index, token in enumerate(document):
        positions.setdefault(token, []).append(index)
    return positions


def greedy_fragments(
    summary: Sequence[str],
    document: Sequence[str],
    *,
    positions: dict[str, list[int]] | None = None,
) -> tuple[Fragment, ...]:
    """The extractive fragments of a summary, by Grusky et al.'s greedy algorithm.

    This is newsroom's ``Fragments._match`` step for step (tokens compared as given; lower-case
    them first for newsroom's default): from the current summary position, scan the document
    left to right; at each match extend it as far as it goes, keep the longest (the first one
    on ties) and resume the scan *after* the matched stretch (so a match starting inside a
    previous match is not tried, exactly as published); then advance the summary position by
    the best length, or by one token when nothing matches. The scan visits only the document
    positions holding the current summary token (``positions``), which gives the same matches
    in the same order as scanning every position.

    Args:
        summary: the summary's tokens.
        document: the document's tokens.
        positions: :func:`token_positions` of ``document`` when the caller has it (several
            summaries of one document); computed when None.

    Returns:
        The fragments in summary order; they never overlap in the summary.

    Raises:
        TokensError: either token list is invalid.
    """
    a = check_tokens(summary, "summary")
    b = check_tokens(document, "document")
    return greedy_checked(a, b, token_positions(b) if positions is None else positions)


def greedy_checked(
    a: tuple[str, ...], b: tuple[str, ...], positions: dict[str, list[int]]
) -> tuple[Fragment, ...]:
    """:func:`greedy_fragments` of token tuples already checked, with the document's index.

    Args:
        a: the summary's tokens.
        b: the document's tokens.
        positions: ``token_positions(b)``.

    Returns:
        The fragments in summary order.
    """
    n_a, n_b = len(a), len(b)
    matches: list[Fragment] = []
    a_start = 0
    while a_start < n_a:
        best_length, best_start = 0, 0
        b_start = 0
        for start in positions.get(a[a_start], ()):
            if start < b_start:  # inside the stretch just matched: newsroom skips it
                continue
            a_end, b_end = a_start + 1, start + 1
            while a_end < n_a and b_end < n_b and b[b_end] == a[a_end]:
                a_end += 1
                b_end += 1
            length = a_end - a_start
            if length > best_length:
                best_length, best_start = length, start
            b_start = b_end
        if best_length:
            matches.append(Fragment(a_start, best_start, best_length))
            a_start += best_length
        else:
            a_start += 1
    return tuple(matches)


def fragment_stats(
    summary: Sequence[str],
    document: Sequence[str],
    *,
    positions: dict[str, list[int]] | None = None,
) -> FragmentStats:
    """Coverage, density, compression and copy length of one (document, summary) pair.

    Args:
        summary: the summary's tokens.
        document: the document's tokens.
        positions: :func:`token_positions` of ``document``, if the caller has it.

    Returns:
        The pair's :class:`FragmentStats` (see its docstring for the definitions).

    Raises:
        TokensError: either token list is invalid.
    """
    summary = check_tokens(summary, "summary")
    document = check_tokens(document, "document")
    if positions is None:
        positions = token_positions(document)
    return stats_checked(summary, document, positions)


def stats_checked(
    summary: tuple[str, ...], document: tuple[str, ...], positions: dict[str, list[int]]
) -> FragmentStats:
    """:func:`fragment_stats` of token tuples already checked, with the document's index.

    Args:
        summary: the summary's tokens.
        document: the document's tokens.
        positions: ``token_positions(document)``.

    Returns:
        The pair's :class:`FragmentStats`.
    """
    fragments = greedy_checked(summary, document, positions)
    n_summary, n_document = len(summary), len(document)
    lengths = [fragment.length for fragment in fragments]
    if n_summary:
        coverage = sum(lengths) / n_summary
        density = sum(length * length for length in lengths) / n_summary
        compression = n_document / n_summary
    else:
        coverage = density = compression = 0.0
    return FragmentStats(
        fragments=fragments,
        summary_length=n_summary,
        document_length=n_document,
        coverage=float(coverage),
        density=float(density),
        compression=float(compression),
        copy_length=sum(lengths) / len(lengths) if lengths else 0.0,
        max_copy_length=max(lengths, default=0),
    )
