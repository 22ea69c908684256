"""Bias sums merged over chunks equal the means of the whole; prepared documents change nothing."""

import random

import pytest

from scoring.metrics.bias import (
    BiasError,
    NoItemsError,
    aggregate,
    bias_sums,
    item_bias,
    prepare_document,
    sums_from_dict,
    sums_means,
    sums_merge,
)


def t(text):
    return text.split()


def _pair(summary, document, **options):
    return item_bias(
        [t(s) for s in summary.split("|")] if summary else [], [t(s) for s in document], **options
    )


def test_sums_hand_worked_and_merged_over_chunks():
    first = _pair("a b x d e f", ["a b c", "d e f"])  # cov 5/6, dens 13/6, compr 1
    second = _pair("", ["a b"])  # empty summary: newsroom's zeros
    third = _pair("d e f", ["a b c", "d e f"])  # cov 1, dens 3, compr 2
    part = bias_sums([first, second], bins=2)
    assert part.n_items == 2 and part.n_empty_summaries == 1
    assert part.coverage == pytest.approx(5 / 6) and part.density == pytest.approx(13 / 6)
    assert part.ngram_counts == (1, 1, 1, 1) and part.novel[0] == pytest.approx(1 / 6)
    # "d e f" copied from sentence 1 of 2: three tokens at position 0.5, in bin 1 of 2.
    assert (part.position, part.position_count, part.histogram) == (1.5, 3, (0, 3))
    assert (part.fusion, part.fusion_count) == (0.0, 1)
    merged = sums_merge([part, bias_sums([third], bins=2)])
    assert merged.n_items == 3 and merged.histogram == (0, 6)
    means = sums_means(merged)
    # the figures of test_bias.py's test_aggregate_hand_worked, by hand
    assert means.coverage == pytest.approx((5 / 6 + 0 + 1) / 3)
    assert means.density == pytest.approx((13 / 6 + 0 + 3) / 3)
    assert means.compression == pytest.approx(1.0)
    assert means.copy_length == pytest.approx((2.5 + 0 + 3) / 3)
    assert means.novel[0] == pytest.approx(1 / 12) and means.novel[3] == 1.0
    assert means.ngram_counts == (2, 2, 2, 1)
    assert means.fusion == 0.0 and means.mean_position == 0.5
    assert means.position_histogram == (0.0, 1.0)
    assert (
        sums_from_dict(
            {k: list(v) if isinstance(v, tuple) else v for k, v in merged.__dict__.items()}
        )
        == merged
    )


def test_chunked_sums_equal_aggregate_on_random_pairs():
    rng = random.Random(12)
    words = [f"w{i}" for i in range(30)]
    items = []
    for _ in range(200):
        document = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(6)]
        summary = [
            rng.choice(document)[: rng.randint(1, 9)] + [rng.choice(words)]
            for _ in range(rng.randint(0, 3))
        ]
        items.append(item_bias(summary, document))
    whole = aggregate(items, bins=7)
    chunks = [bias_sums(items[i : i + 33], bins=7) for i in range(0, len(items), 33)]
    means = sums_means(sums_merge(chunks))
    for name in ("n_items", "n_empty_summaries", "ngram_counts"):
        assert getattr(means, name) == getattr(whole, name)
    for name in ("coverage", "density", "compression", "copy_length", "fusion", "mean_position"):
        assert getattr(means, name) == pytest.approx(getattr(whole, name), rel=1e-12)
    for name in ("novel", "repeated", "position_histogram"):
        assert getattr(means, name) == pytest.approx(getattr(whole, name), rel=1e-12)


def test_prepared_document_gives_the_same_item():
    rng = random.Random(3)
    words = [f"w{i}" for i in range(12)]
    for _ in range(100):
        document = [[rng.choice(words) for _ in range(rng.randint(0, 8))] for _ in range(5)]
        summary = [[rng.choice(words) for _ in range(rng.randint(0, 8))] for _ in range(2)]
        prepared = prepare_document(document)
        assert item_bias(summary, prepared) == item_bias(summary, document)
        # a document prepared for fewer orders is prepared again for the order asked
        short = prepare_document(document, max_order=2)
        assert item_bias(summary, short, max_order=3) == item_bias(summary, document, max_order=3)


def test_sums_errors():
    a = _pair("a b c", ["a b c"])
    with pytest.raises(NoItemsError):
        bias_sums([])
    with pytest.raises(NoItemsError):
        sums_merge([])
    with pytest.raises(BiasError, match="bins"):
        bias_sums([a], bins=0)
    with pytest.raises(BiasError, match="max_order"):
        bias_sums([a, _pair("a b c", ["a b c"], max_order=2)])
    with pytest.raises(BiasError, match="differ"):
        sums_merge([bias_sums([a], bins=2), bias_sums([a], bins=3)])
    with pytest.raises(BiasError, match="not a BiasSums"):
        sums_from_dict({"n_items": 1})
