"""ROUGE engine against rouge-score itself: tokens, LCS and all nine values, bit for bit."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from rouge_score.rouge_scorer import RougeScorer, _lcs_table
from rouge_score.tokenizers import DefaultTokenizer

from scoring.metrics.rouge import ROUGE_TYPES, allpairs, allpairs_dataset, score_pair, tokenize
from scoring.metrics.rouge.lcs import lcs_length, lcs_matrix

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
POLYTOPE = SHARED / "polytope-release" / "outputs"

SCORER = RougeScorer(list(ROUGE_TYPES), use_stemmer=True)

# Real sentences (news style), with stems, repeats, numbers, punctuation and casing.
REAL = [
    "Police said the suspects were arrested on Tuesday after a three-day manhunt.",
    "The suspects, aged 21 and 23, were arrested by police in Manchester on Tuesday.",
    "A spokesman for the police declined to comment on the arrests.",
    "Officials say 1,200 people were evacuated as the floods rose to 3.5 metres.",
    "Flooding forced the evacuation of more than a thousand residents, officials said.",
    "\u201cWe are devastated,\u201d the family said in a statement released on Wednesday.",
    "The company's shares fell 12% after it reported a loss of $4.2bn for the quarter.",
    "Shares in the company fell sharply after it reported quarterly losses.",
    "It was the worst quarterly result in the company's 50-year history.",
    "The minister resigned, saying she had been 'misled' by her advisers.",
    "Caf\u00e9 owners in the na\u00efve district said business was running as usual.",
    "",
    "!!!",
    "Running runners ran; the runner runs.",
]

WORDS = (
    "the a of to in and police said was were arrest arrested arresting arrests run runs "
    "running runner organization organizations organize generously general cat cats dog "
    "dogs 12 3 2024 U.S. don't it's state-of-the-art caf\u00e9 na\u00efve \u212aelvin skies "
    "dying lying news sky"
).split()
PUNCTUATION = ["", "", "", ",", ".", " -", "!", "'s", "?", ";"]


def random_sentence(rng: random.Random) -> str:
    length = rng.choice([0, 1, 2, 3, *range(4, 40), 70, 90])
    words = [rng.choice(WORDS) + rng.choice(PUNCTUATION) for _ in range(length)]
    words = [w.upper() if rng.random() < 0.05 else w for w in words]
    return " ".join(words)


def reference_arrays(facets, sentences) -> np.ndarray:
    """(3 types, 3 measures, facets, sentences) from RougeScorer.score, pair by pair."""
    values = np.zeros((3, 3, len(facets), len(sentences)))
    for i, facet in enumerate(facets):
        for j, sentence in enumerate(sentences):
            scores = SCORER.score(facet, sentence)
            for t, name in enumerate(ROUGE_TYPES):
                values[t, :, i, j] = tuple(scores[name])
    return values


def engine_arrays(result) -> np.ndarray:
    return np.stack(
        [
            np.stack([m.precision, m.recall, m.fmeasure])
            for m in (result.rouge1, result.rouge2, result.rougeL)
        ]
    )


def test_tokenizer_is_rouge_scores():
    theirs = DefaultTokenizer(use_stemmer=True)
    rng = random.Random(7)
    texts = REAL + [random_sentence(rng) for _ in range(300)]
    texts += ["\u0130stanbul \u00df \u03a3\u03b1 \uff21\uff22 x\u00b2 \u2167", "tab\tnew\nline"]
    for text in texts:
        assert list(tokenize(text)) == theirs.tokenize(text), text


def test_rapidfuzz_lcs_is_the_lcs_of_token_ids():
    rng = random.Random(11)
    for _ in range(300):
        alphabet = rng.choice([2, 3, 5, 50])
        a = [rng.randrange(alphabet) for _ in range(rng.choice([0, 1, 5, 30, 64, 65, 130]))]
        b = [rng.randrange(alphabet) for _ in range(rng.choice([0, 1, 5, 30, 64, 65, 130]))]
        assert lcs_length(a, b) == _lcs_table(a, b)[-1][-1]
    rows = [[1, 2, 3, 2, 1], [], [3, 3, 3]]
    columns = [[3, 2, 1], [1, 2, 3, 2, 1], [4]]
    expected = [[_lcs_table(r, c)[-1][-1] for c in columns] for r in rows]
    assert lcs_matrix(rows, columns).tolist() == expected


def test_random_pairs_are_identical_to_rouge_score():
    rng = random.Random(20200705)
    for _ in range(12):
        facets = [random_sentence(rng) for _ in range(rng.randint(1, 6))]
        sentences = [random_sentence(rng) for _ in range(rng.randint(1, 25))]
        expected = reference_arrays(facets, sentences)
        assert np.array_equal(engine_arrays(allpairs(facets, sentences)), expected)


def test_score_pair_is_identical_to_rouge_score():
    rng = random.Random(3)
    texts = REAL + [random_sentence(rng) for _ in range(40)]
    for target in texts[:30]:
        for prediction in texts:
            theirs = SCORER.score(target, prediction)
            ours = score_pair(target, prediction)
            for name in ROUGE_TYPES:
                assert tuple(getattr(ours, name).as_dict().values()) == tuple(theirs[name])


def test_real_sentences_all_pairs_are_identical():
    expected = reference_arrays(REAL, REAL)
    assert np.array_equal(engine_arrays(allpairs(REAL, REAL)), expected)


@pytest.mark.shared
@pytest.mark.skipif(not POLYTOPE.is_dir(), reason=f"{POLYTOPE} is absent (the PolyTope release)")
def test_polytope_documents_are_identical():
    from annotation.corpus.importers.parsers.polytope import parse_polytope_release

    documents = parse_polytope_release(POLYTOPE).documents[:8]
    stream = allpairs_dataset(
        (d.external_id, [s for r in d.references for s in r.sentences], d.sentences)
        for d in documents
    )
    for document, (doc_id, result) in zip(documents, stream, strict=True):
        assert doc_id == document.external_id
        facets = [s for r in document.references for s in r.sentences]
        expected = reference_arrays(facets, document.sentences)
        assert np.array_equal(engine_arrays(result), expected), doc_id


@pytest.mark.parametrize("block_cells", [1, 7, 50])
def test_prediction_blocks_give_the_same_values(monkeypatch, block_cells):
    from scoring.metrics.rouge import ngrams

    monkeypatch.setattr(ngrams, "BLOCK_CELLS", block_cells)
    rng = random.Random(block_cells)
    facets = [random_sentence(rng) for _ in range(4)]
    sentences = [random_sentence(rng) for _ in range(15)] + [""]
    expected = reference_arrays(facets, sentences)
    assert np.array_equal(engine_arrays(allpairs(facets, sentences)), expected)
