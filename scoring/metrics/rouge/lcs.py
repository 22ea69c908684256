"""Longest common subsequences of token ids: RapidFuzz's lengths, and ROUGE-Lsum's union LCS."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rapidfuzz.distance import LCSseq


def lcs_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common subsequence of two sequences of token ids.

    Token ids are integers, compared by value, so two different tokens can never be taken
    for the same one (as they might be if RapidFuzz compared the strings by hash).

    Args:
        a: token ids.
        b: token ids.

    Returns:
        The LCS length (0 when either side is empty).
    """
    return int(LCSseq.similarity(a, b))


def lcs_indices(reference: Sequence[int], candidate: Sequence[int]) -> list[int]:
    """Positions in ``reference`` of the one longest common subsequence rouge-score picks.

    rouge-score's ``lcs_ind``: the full LCS table, then back from its last cell, diagonally on a
    match, else left when the left cell is strictly greater, else up. Another LCS of the same
    length would give ROUGE-Lsum another union, so the order of the moves matters.

    Args:
        reference: token ids of one reference sentence.
        candidate: token ids of one candidate sentence.

    Returns:
        Increasing positions in ``reference``.
    """
    columns = len(candidate)
    table = [[0] * (columns + 1)]
    for token in reference:
        above, row = table[-1], [0]
        for j, other in enumerate(candidate):
            row.append(above[j] + 1 if token == other else max(above[j + 1], row[j]))
        table.append(row)
    found = []
    i, j = len(reference), columns
    while i > 0 and j > 0:
        if reference[i - 1] == candidate[j - 1]:
            found.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    found.reverse()
    return found


def summary_lcs_hits(reference: Sequence[Sequence[int]], candidate: Sequence[Sequence[int]]) -> int:
    """ROUGE-Lsum's matched tokens: the summary-level LCS of Lin (2004), section 3.2, as
    rouge-score (and ROUGE-1.5.5) count it.

    For each reference sentence, the union of its LCS positions (:func:`lcs_indices`) with
    every candidate sentence; each token of the union counts once while both summaries still
    have an unmatched copy of it, so no token is counted more often than it occurs.

    Args:
        reference: the reference's sentences as token ids.
        candidate: the candidate's sentences as token ids.

    Returns:
        The hits (0 when either side has no sentence).
    """
    left_reference = Counter(token for sentence in reference for token in sentence)
    left_candidate = Counter(token for sentence in candidate for token in sentence)
    hits = 0
    for sentence in reference:
        union = sorted(set().union(*(lcs_indices(sentence, other) for other in candidate)))
        for position in union:
            token = sentence[position]
            if left_candidate[token] > 0 and left_reference[token] > 0:
                hits += 1
                left_candidate[token] -= 1
                left_reference[token] -= 1
    return hits
