"""N-gram counts and clipped overlaps, for one pair (Counters) or all pairs (count matrices)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

# Largest prediction-count block (texts x vocabulary cells) built at once by overlap_matrix.
BLOCK_CELLS = 1 << 22


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Count the n-grams of a token sequence, as rouge-score's ``_create_ngrams`` does.

    Args:
        tokens: the tokens.
        n: n-gram order (1 or more).

    Returns:
        A Counter of n-gram tuples; empty when there are fewer than ``n`` tokens.
    """
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def clipped_overlap(target: Counter, prediction: Counter) -> int:
    """Matched n-grams: each n-gram counts ``min(count in target, count in prediction)`` times.

    Args:
        target: the target's n-gram counts.
        prediction: the prediction's n-gram counts.

    Returns:
        The overlap count.
    """
    return sum(min(count, prediction[gram]) for gram, count in target.items() if gram in prediction)


def _count_matrix(
    positions: np.ndarray, owners: np.ndarray, first: int, n_rows: int, width: int
) -> np.ndarray:
    """Rows ``first .. first+n_rows-1`` of the text x vocabulary count matrix."""
    cells = (owners - first) * width + positions
    return np.bincount(cells, minlength=n_rows * width).reshape(n_rows, width)


def overlap_matrix(codes: np.ndarray, owners: np.ndarray, n_targets: int, n_texts: int):
    """Clipped n-gram overlap of every target text with every other text, with integer codes.

    Texts ``0 .. n_targets-1`` are the targets (facets), the rest the predictions (sentences).
    Only the targets' n-grams can match, so the vocabulary is theirs. With ``A`` and ``B`` the
    target and prediction count matrices over it, the overlap ``sum_v min(A[f, v], B[s, v])``
    is computed as ``sum_k (A >= k) @ (B >= k).T`` for ``k = 1 .. max(A)``: one small matrix
    product per count level, exact because every entry is a small integer. Predictions are
    taken in blocks of at most :data:`BLOCK_CELLS` matrix cells, so a huge document never
    builds a huge count matrix.

    Args:
        codes: int64 code of every n-gram of every text (equal codes mean equal n-grams).
        owners: int64 index of the text each n-gram belongs to, same length as ``codes``, in
            non-decreasing order (texts one after the other).
        n_targets: number of target texts.
        n_texts: number of texts (targets then predictions).

    Returns:
        A (n_targets, n_texts - n_targets) float64 array of integral overlap counts.
    """
    n_predictions = n_texts - n_targets
    overlap = np.zeros((n_targets, n_predictions), dtype=np.float64)
    vocabulary = np.unique(codes[owners < n_targets])
    if vocabulary.size == 0 or n_predictions == 0:
        return overlap
    positions = np.searchsorted(vocabulary, codes)
    positions[positions == vocabulary.size] = 0
    known = vocabulary[positions] == codes
    positions, owners = positions[known], owners[known]
    bounds = np.searchsorted(owners, np.arange(n_texts + 1))  # each text's slice of the arrays
    width = vocabulary.size
    targets = _count_matrix(
        positions[: bounds[n_targets]], owners[: bounds[n_targets]], 0, n_targets, width
    )
    levels = [(targets >= level).astype(np.float64) for level in range(1, int(targets.max()) + 1)]
    block = max(1, BLOCK_CELLS // width)
    for first in range(n_targets, n_texts, block):
        last = min(first + block, n_texts)
        lo, hi = bounds[first], bounds[last]
        predictions = _count_matrix(positions[lo:hi], owners[lo:hi], first, last - first, width)
        columns = slice(first - n_targets, last - n_targets)
        for level, target_mask in enumerate(levels, start=1):
            overlap[:, columns] += target_mask @ (predictions >= level).T.astype(np.float64)
    return overlap
