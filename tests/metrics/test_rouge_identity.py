"""ROUGE engine against rouge-score itself: tokens, LCS and all nine values, bit for bit."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from rouge_score.rouge_scorer import _lcs_table
from rouge_score.tokenizers import DefaultTokenizer

from scoring.metrics.rouge import (
    ROUGE_TYPES,
    allpairs,
    allpairs_dataset,
    allpairs_many,
    score_pair,
    score_pairs,
    tokenize,
)
from scoring.metrics.rouge.batch import encode
from scoring.metrics.rouge.lcs import lcs_length
from scoring.metrics.rouge.tokens import tokenize_nltk
from tests.rouge_helpers import rouge_score_scorer

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
POLYTOPE = SHARED / "polytope-release" / "outputs"

# rouge-score's RougeScorer(ROUGE_TYPES, use_stemmer=True), each text tokenized once.
SCORER = rouge_score_scorer(ROUGE_TYPES, use_stemmer=True)

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


ODD_TEXTS = [
    "",
    "!!! ... ---",
    "\u0130stanbul \u00df \u03a3\u03b1 \uff21\uff22 x\u00b2 \u2167 \u212aelvin",
    "tab\tnew\nline\r\nand\x00nul",
    "a text holding the old separator word 40894237519036 itself",
    "ODYSSEUS's ships sailed; 1,200 sailors (exhausted) rested.",
    "\U0001f600 emoji \ud800 lone surrogate",
]


def test_tokenizers_agree_with_rouge_score():
    theirs = DefaultTokenizer(use_stemmer=True)
    rng = random.Random(7)
    texts = REAL + ODD_TEXTS + [random_sentence(rng) for _ in range(300)]
    for text in texts:
        expected = theirs.tokenize(text.encode("utf-8", "replace").decode("utf-8"))
        assert list(tokenize_nltk(text)) == expected, text
        assert list(tokenize(text)) == expected, text


# Words of every length class encode() numbers apart: up to 8 bytes, 9 to 12, longer.
LENGTHS = [
    "ab abcdefgh abcdefghi abcdefghij1 abcdefghijkl abcdefghijklm 40894237519036",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 abcdefghijklmnopqrstuvwxyz0123456789 abcdefgh1",
    "zzzzzzzzzzzz zzzzzzzzzzzzz 999999999999 9999999999999 zzzzzzzz 99999999",
]


@pytest.mark.parametrize("lengths", [False, True])
def test_encode_numbers_each_texts_tokens(lengths):
    rng = random.Random(5)
    texts = REAL + ODD_TEXTS + [random_sentence(rng) for _ in range(100)]
    if lengths:
        texts = LENGTHS + texts + LENGTHS[::-1]
    encoded = encode(texts)
    seen: dict[int, str] = {}
    for n, text in enumerate(texts):
        ids = encoded.ids[encoded.bounds[n] : encoded.bounds[n + 1]].tolist()
        tokens = tokenize(text)
        assert len(ids) == len(tokens), text
        for number, token in zip(ids, tokens, strict=True):
            assert seen.setdefault(number, token) == token  # one id, one token
    assert len(set(seen.values())) == len(seen) == encoded.vocabulary
    assert encode([]).ids.size == 0 and encode([""]).bounds.tolist() == [0, 0]
    with pytest.raises(TypeError, match="text 1"):
        encode(["fine", None])


def test_many_documents_at_once_are_identical_to_rouge_score():
    rng = random.Random(99)
    documents = [
        (
            [random_sentence(rng) for _ in range(rng.randint(0, 5))],
            [random_sentence(rng) for _ in range(rng.randint(0, 20))],
        )
        for _ in range(25)
    ]
    documents.append((REAL[:3], ODD_TEXTS))
    results = allpairs_many(documents)
    assert len(results) == len(documents)
    for (facets, sentences), result in zip(documents, results, strict=True):
        assert result.shape == (len(facets), len(sentences))
        assert np.array_equal(engine_arrays(result), reference_arrays(facets, sentences))
    assert allpairs_many([]) == []


@pytest.mark.parametrize("batch", [1, 3, 1000])
def test_dataset_batches_give_the_same_values(batch):
    rng = random.Random(batch)
    documents = [
        (
            f"d{n}",
            [random_sentence(rng) for _ in range(3)],
            [random_sentence(rng) for _ in range(7)],
        )
        for n in range(7)
    ]
    stream = list(allpairs_dataset(iter(documents), batch=batch))
    assert [doc_id for doc_id, _ in stream] == [doc_id for doc_id, _, _ in documents]
    for (_, facets, sentences), (_, result) in zip(documents, stream, strict=True):
        assert np.array_equal(engine_arrays(result), reference_arrays(facets, sentences))


def test_dataset_names_the_bad_document():
    with pytest.raises(TypeError, match="document 'd2'"):
        list(allpairs_dataset([("d1", ["a"], ["b"]), ("d2", ["a"], [None])]))


def test_score_pairs_is_identical_to_rouge_score():
    rng = random.Random(17)
    texts = REAL + ODD_TEXTS + [random_sentence(rng) for _ in range(60)]
    targets = [rng.choice(texts) for _ in range(150)]
    predictions = [rng.choice(texts) for _ in range(150)]
    result = score_pairs(targets, predictions)
    assert len(result) == 150
    for n, (target, prediction) in enumerate(zip(targets, predictions, strict=True)):
        theirs = SCORER.score(target, prediction)
        assert result.pair(n) == score_pair(target, prediction)
        for name in ROUGE_TYPES:
            assert tuple(getattr(result.pair(n), name).as_dict().values()) == tuple(theirs[name])
    assert result.pair_list() == [result.pair(n) for n in range(150)]
    assert all(
        type(value) is float
        for pair in result.pair_list()
        for name in ROUGE_TYPES
        for value in getattr(pair, name).as_dict().values()
    )
    assert len(score_pairs([], [])) == 0
    assert score_pairs([], []).pair_list() == []


def test_score_pairs_refuses_bad_input():
    with pytest.raises(ValueError, match="2 targets but 1 predictions"):
        score_pairs(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="single str"):
        score_pairs("ab", "ab")
    with pytest.raises(TypeError, match="must be a str"):
        score_pairs(["a"], [3])


@pytest.mark.shared
@pytest.mark.skipif(not POLYTOPE.is_dir(), reason=f"{POLYTOPE} is absent (the PolyTope release)")
def test_native_stems_are_nltks_on_every_word_of_the_releases():
    """The compiled tokenizer against NLTK's Porter stemmer on every distinct word of the
    PolyTope release (articles, references, the ten systems' outputs) and the FAR release."""
    from annotation.corpus.importers.parsers.far import parse_far_release
    from annotation.corpus.importers.parsers.polytope import parse_polytope_release
    from scoring.metrics.rouge.tokens import NON_ALPHANUM_RE, stem_word

    texts = []
    polytope = parse_polytope_release(POLYTOPE)
    for document in polytope.documents:
        texts += [*document.sentences, *(s for r in document.references for s in r.sentences)]
    for output in getattr(polytope, "outputs", ()):
        texts += list(output.sentences)
    for document in parse_far_release(SHARED / "far-release").documents:
        texts += [*document.sentences, *(s for r in document.references for s in r.sentences)]
    words = sorted({w for t in texts for w in NON_ALPHANUM_RE.sub(" ", t.lower()).split()})
    assert len(words) > 10_000
    native = tokenize(" ".join(words))
    assert list(native) == [stem_word(w) for w in words]
    assert list(native) == DefaultTokenizer(use_stemmer=True).tokenize(" ".join(words))


def test_the_only_non_ascii_letters_that_lower_case_to_ascii_are_known():
    """encode() replaces these before it drops every other non-ASCII character: checked
    against every code point of this Python's Unicode database."""
    from scoring.metrics.rouge.batch import ASCII_LOWERED

    found = {
        chr(code): chr(code).lower()
        for code in range(128, 0x110000)
        if any(c.isascii() and c.isalnum() for c in chr(code).lower())
    }
    assert {c: DefaultTokenizer(use_stemmer=True).tokenize(f"x{c}x") for c in found} == {
        c: DefaultTokenizer(use_stemmer=True).tokenize(f"x{v}x") for c, v in ASCII_LOWERED.items()
    }
    assert set(found) == set(ASCII_LOWERED)


def test_lcs_without_code_points_gives_the_same_values(monkeypatch):
    """Past about a million distinct tokens in one batch, LCS runs on lists of token ids."""
    from scoring.metrics.rouge import batch

    rng = random.Random(23)
    documents = [([random_sentence(rng) for _ in range(3)], REAL) for _ in range(3)]
    expected = [engine_arrays(r) for r in allpairs_many(documents)]
    monkeypatch.setattr(batch, "_MAX_CHAR_VOCABULARY", 0)
    found = [engine_arrays(r) for r in allpairs_many(documents)]
    assert all(np.array_equal(a, b) for a, b in zip(found, expected, strict=True))
    assert all(
        np.array_equal(a, reference_arrays(*d)) for a, d in zip(found, documents, strict=True)
    )
