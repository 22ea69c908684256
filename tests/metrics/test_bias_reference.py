"""Bias measures equal newsroom's Fragments and summ-eval's n-gram statistics (copied reference)."""

from __future__ import annotations

import random

import pytest

from scoring.metrics.bias import fragment_stats, item_bias, ngram_stats, tokenize
from tests.conftest import SHARED_DATA
from tests.metrics.fragments_reference import DataStatsMetric, Fragments

ORDERS = 4
REFERENCE = DataStatsMetric(n_gram=ORDERS)
POLYTOPE = SHARED_DATA / "polytope-release" / "outputs"
# One extractive and one abstractive system of the release, and how many documents to check.
SYSTEMS = ("bertsumext", "bart")
FIRST = 20


def assert_same_as_reference(summary, document, ours_fragments=None, ours_ngrams=None):
    """Every measure of ours on (summary, document) equals the reference's, exactly."""
    if ours_fragments is None:
        ours_fragments = fragment_stats(summary, document)
    if ours_ngrams is None:
        ours_ngrams = ngram_stats(summary, document, max_order=ORDERS)
    theirs = REFERENCE.evaluate_example(list(summary), list(document))
    matches = Fragments(list(summary), list(document)).overlaps()
    assert [(f.summary_start, f.document_start, f.length) for f in ours_fragments.fragments] == [
        tuple(m) for m in matches
    ]
    assert ours_fragments.coverage == theirs["coverage"]
    assert ours_fragments.density == theirs["density"]
    assert ours_fragments.compression == theirs["compression"]
    assert ours_fragments.summary_length == theirs["summary_length"]
    for n in range(1, ORDERS + 1):
        # summ-eval leaves a key out when the summary has no n-gram (0/0); ours says None.
        assert ours_ngrams.novel[n - 1] == theirs.get(f"percentage_novel_{n}-gram")
        assert ours_ngrams.repeated[n - 1] == theirs.get(f"percentage_repeated_{n}-gram_in_summ")


def random_tokens(rng, vocabulary, longest):
    return [rng.choice(vocabulary) for _ in range(rng.randint(0, longest))]


def test_random_token_lists_equal_the_reference():
    rng = random.Random(20180601)
    seen_fragments = seen_undefined = 0
    for _ in range(2000):
        # Small vocabularies so fragments, repeats and greedy-scan corner cases occur often.
        vocabulary = "abcdef"[: rng.randint(1, 6)]
        summary = random_tokens(rng, vocabulary, 12)
        document = random_tokens(rng, vocabulary, 30)
        assert_same_as_reference(summary, document)
        seen_fragments += bool(fragment_stats(summary, document).fragments)
        seen_undefined += len(summary) < ORDERS
    # The sample exercises both the usual case and the empty / too-short summaries.
    assert seen_fragments > 1500
    assert seen_undefined > 100


def test_case_differences_are_kept_as_given():
    # Ours compares tokens as given; the reference lower-cases for fragments (case=False) but
    # not for n-grams, so lower-case tokens (what tokenize returns) are what both agree on.
    summary, document = tokenize("The Storm hit; THE coast."), tokenize("the storm hit the coast")
    assert summary == ("the", "storm", "hit", "the", "coast")
    assert_same_as_reference(summary, document)


@pytest.fixture(scope="module")
def polytope_pairs():
    """(name, summary sentences, document sentences) for the release's first documents."""
    from annotation.corpus.importers.parsers.polytope import parse_polytope_release

    bundle = parse_polytope_release(POLYTOPE)
    documents = bundle.documents[:FIRST]
    wanted = {document.external_id for document in documents}
    outputs = {
        (output.system_slug, output.document_id): output.sentences
        for output in bundle.outputs
        if output.system_slug in SYSTEMS and output.document_id in wanted
    }
    pairs = []
    for document in documents:
        pairs.append(
            (f"reference {document.external_id}", document.references[0].sentences, document)
        )
        for system in SYSTEMS:
            name = f"{system} {document.external_id}"
            pairs.append((name, outputs[system, document.external_id], document))
    return pairs


@pytest.mark.shared
@pytest.mark.skipif(not POLYTOPE.is_dir(), reason=f"{POLYTOPE} is absent (the PolyTope release)")
def test_polytope_references_and_outputs_equal_the_reference(polytope_pairs):
    assert len(polytope_pairs) == FIRST * (1 + len(SYSTEMS))
    coverage = {}
    for name, summary_sentences, document in polytope_pairs:
        summary = [tokenize(sentence) for sentence in summary_sentences]
        sentences = [tokenize(sentence) for sentence in document.sentences]
        ours = item_bias(summary, sentences, max_order=ORDERS)
        flat_summary = [token for sentence in summary for token in sentence]
        flat_document = [token for sentence in sentences for token in sentence]
        assert flat_summary, name
        try:
            assert_same_as_reference(flat_summary, flat_document, ours.fragments, ours.ngrams)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from error
        coverage.setdefault(name.split()[0], []).append(ours.fragments.coverage)
    # A sanity check that real copying was compared: the extractive system copies nearly all.
    assert min(coverage["bertsumext"]) > 0.9
    assert max(coverage["bart"]) > 0.5
