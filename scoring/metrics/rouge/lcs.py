"""Longest-common-subsequence lengths over token sequences, computed by RapidFuzz's C++ code."""

from __future__ import annotations

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
