"""Leaderboard figures depend on the documents' order, never on their keys (e.g. database ids).

Two copies of a dataset give their documents other keys: the ids 1..40 sort as text "1", "10",
"11", ..., "2", and the copy's ids 958..997 differently again. Given the dataset's order, the
core sums, resamples and pairs documents in it, so relabelling the keys while keeping their
order leaves every mean, interval, p-value, note, PolyTope cell and correlation identical, to
the last bit. Without an order the canonical key order is used, as before.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics.leaderboard import (
    build_leaderboard,
    correlate_human_scores,
    correlate_with_human,
    polytope_cell,
    rank_by_polytope,
)
from scoring.metrics.polytope import PolytopeSegmentScore
from scoring.metrics.stats import (
    KeyOrder,
    StatsError,
    UnorderedKeyError,
    bootstrap_ci,
    bootstrap_ratio_ci,
    in_order,
    paired_permutation_test,
)

N = 40
RESAMPLES = 2000  # more than 2 ** 16, so the paired tests draw their sign patterns
SYSTEMS = ("s1", "s2", "s3", "s4")
METRICS = ("m1", "m2")
# The same 40 documents under two sets of keys, listed in the dataset's order (position).
ORIGINAL = tuple(range(1, N + 1))
COPY = tuple(range(997, 997 - N, -1))  # 997, 996, ...: canonical order runs backwards
RELABEL = dict(zip(ORIGINAL, COPY, strict=True))


def _values(seed: int) -> list[float]:
    """Scores with full-precision fractions, so the order of a sum changes its last bits."""
    return list(np.random.default_rng(seed).random(N))


def _data(keys: tuple) -> tuple[dict, dict]:
    """(scores, covered) over ``keys``: s4 misses the last 3 documents and the m2 score of
    the 5th (its scoring is incomplete). Mappings are filled backwards: their order is
    never the one used."""
    scores: dict = {}
    covered: dict = {}
    for s, system in enumerate(SYSTEMS):
        docs = keys[:-3] if system == "s4" else keys
        covered[system] = set(docs)
        for m, metric in enumerate(METRICS):
            values = dict(zip(keys, _values(10 * s + m), strict=True))
            kept = [d for d in docs if not (system == "s4" and metric == "m2" and d == keys[4])]
            scores.setdefault(system, {})[metric] = {d: values[d] for d in reversed(kept)}
    return scores, covered


def _board(keys: tuple, order, **options):
    scores, covered = _data(keys)
    return build_leaderboard(
        scores,
        documents=set(keys),
        covered=covered,
        metrics=list(METRICS),
        sort="m1",
        resamples=RESAMPLES,
        order=order,
        **options,
    )


@pytest.mark.parametrize("options", [{}, {"common_only": True}, {"seed": 7, "level": 0.9}])
def test_relabelled_keys_in_the_same_order_give_the_same_leaderboard(options):
    original = _board(ORIGINAL, ORIGINAL, **options)
    copy = _board(COPY, KeyOrder(COPY), **options)
    assert original == copy  # every mean, interval, p-value, note and the ranking
    assert original.notes and all(r.comparison is not None for r in original.rows[:-1])
    # Without the order the keys decide (canonical text order): the copy's figures differ.
    assert _board(ORIGINAL, None, **options) != _board(COPY, None, **options)


def test_the_cells_take_the_documents_in_the_given_order():
    board = _board(ORIGINAL, ORIGINAL)
    cell = next(r for r in board.rows if r.system == "s1").cells["m1"]
    # s1's m1 values listed in the dataset's order: the interval bootstrap_ci gives them.
    alone = bootstrap_ci(_values(0), resamples=RESAMPLES)
    assert (cell.mean, cell.ci_low, cell.ci_high) == pytest.approx(
        (alone.mean, alone.low, alone.high), abs=1e-12
    )
    # The same documents in canonical text order ("1", "10", "11", ...) draw other rows.
    text_order = sorted(ORIGINAL, key=str)
    shuffled = bootstrap_ci([_values(0)[d - 1] for d in text_order], resamples=RESAMPLES)
    assert (cell.ci_low, cell.ci_high) != pytest.approx((shuffled.low, shuffled.high), abs=1e-9)


def test_paired_tests_follow_the_order_not_the_keys():
    a = dict(zip(ORIGINAL, _values(1), strict=True))
    b = dict(zip(ORIGINAL, _values(2), strict=True))
    relabelled = [{RELABEL[d]: v for d, v in side.items()} for side in (a, b)]
    kept = paired_permutation_test(a, b, resamples=RESAMPLES, order=ORIGINAL)
    assert kept == paired_permutation_test(*relabelled, resamples=RESAMPLES, order=COPY)
    assert kept.exact is False and kept.n == N


def _segments(keys: tuple, shift: int) -> dict:
    """One system's annotated outputs: words and error counts vary with the position."""
    return {
        d: PolytopeSegmentScore(
            str(i), 8 + (i * 7 + shift) % 23, int(i % 3 == shift % 3), i % 2, i % 5
        )
        for i, d in enumerate(keys)
    }


def test_polytope_cells_and_their_tests_follow_the_order_not_the_keys():
    def run(keys, order):
        segments = {f"p{s}": _segments(keys, s) for s in range(3)}
        cells = {
            system: polytope_cell(mine, resamples=RESAMPLES, order=order)
            for system, mine in segments.items()
        }
        ranked = rank_by_polytope(cells, segments, list(cells), resamples=RESAMPLES, order=order)
        return cells, ranked

    original = run(ORIGINAL, ORIGINAL)
    assert original == run(COPY, COPY)
    assert original != run(COPY, None)
    # The cell's interval is the ratio bootstrap of the outputs in the given order.
    cell = original[0]["p1"]
    ordered = [_segments(ORIGINAL, 1)[d] for d in ORIGINAL]
    ratio = bootstrap_ratio_ci(
        [s.penalty for s in ordered], [s.words for s in ordered], resamples=RESAMPLES
    )
    assert cell.ci_low == pytest.approx(100 * (1 - ratio.high), abs=1e-9)
    assert cell.ci_high == pytest.approx(100 * (1 - ratio.low), abs=1e-9)


def test_correlations_follow_the_order_not_the_keys():
    def run(keys, order):
        scores, _ = _data(keys)
        metric_scores = {m: {s: scores[s][m] for s in SYSTEMS} for m in METRICS}
        human = {s: dict(zip(keys, _values(50 + i), strict=True)) for i, s in enumerate(SYSTEMS)}
        studies = correlate_with_human(metric_scores, human, name="study", order=order)
        systems = {s: float(np.mean(list(values.values()))) for s, values in human.items()}
        instance = correlate_human_scores(metric_scores, human, systems, name="h", order=order)
        return studies, instance

    original = run(ORIGINAL, ORIGINAL)
    assert original == run(COPY, COPY)
    summary = [r for r in original[0] if r.level == "summary"]
    assert summary and all(r.pearson.value is not None for r in summary)


def test_an_order_that_leaves_out_a_document_is_refused_with_its_key():
    with pytest.raises(UnorderedKeyError) as refused:
        _board(ORIGINAL, ORIGINAL[:-1])
    assert refused.value.missing == {ORIGINAL[-1]} and "40" in str(refused.value)
    with pytest.raises(UnorderedKeyError):
        polytope_cell(_segments(ORIGINAL, 0), order=ORIGINAL[1:])
    with pytest.raises(StatsError, match="appears twice"):
        KeyOrder([1, 2, 1])
    assert in_order({3, 1, 2}, [2, 3, 1]) == (2, 3, 1)
    assert in_order({10, 9}) == (10, 9)  # canonical: by text, "10" < "9"
