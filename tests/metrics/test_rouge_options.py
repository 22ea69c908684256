"""Every rouge-score option against rouge-score itself (types 1-9, L, Lsum; stemming; Punkt
sentences), on the PolyTope release's real summaries and on hand-worked ROUGE-Lsum cases."""

from __future__ import annotations

import itertools
import random

import pytest
from rouge_score.rouge_scorer import RougeScorer

from scoring.metrics.rouge import (
    ALL_ROUGE_KEYS,
    DEFAULT_ROUGE,
    PRF,
    ROUGE_ALL_TYPES,
    RougeConfig,
    RougeConfigError,
    parse_rouge_key,
    score_pair,
    score_pairs,
    tokenize,
)
from scoring.metrics.rouge.lcs import lcs_indices, summary_lcs_hits
from scoring.metrics.rouge.sentences import on_lines, punkt_sentences, summary_sentences
from scoring.metrics.rouge.tokens import tokenize_nltk
from tests.rouge_helpers import POLYTOPE, polytope_pairs, reference_scorer

needs_polytope = pytest.mark.skipif(
    not POLYTOPE.is_dir(), reason=f"{POLYTOPE} is absent (the PolyTope release)"
)
OPTIONS = list(itertools.product((True, False), (False, True)))  # use_stemmer, split_summaries


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r)


def same(ours, theirs, types) -> bool:
    """Our PairScores equal rouge-score's dict of Score tuples, bit for bit."""
    return all(tuple(ours[t].as_dict().values()) == tuple(theirs[t]) for t in types)


# -- hand-worked ROUGE-Lsum ---------------------------------------------------------------


LSUM = RougeConfig(("rougeL", "rougeLsum"))


def test_lsum_lin_2004_example():
    # Lin (2004), section 3.2: reference r = w1 w2 w3 w4 w5, candidate sentences
    # c1 = w1 w2 w6 w7 w8 and c2 = w1 w3 w8 w9 w5. LCS(r, c1) = w1 w2, LCS(r, c2) = w1 w3 w5;
    # their union w1 w2 w3 w5: 4 hits. R = 4/5, P = 4/10 (the candidate's 10 tokens).
    reference, candidate = "w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5"
    scores = score_pair(reference, candidate, LSUM)
    assert scores.rougeLsum == PRF(4 / 10, 4 / 5, f1(4 / 10, 4 / 5))
    # ROUGE-L reads one sequence of 10 tokens, whose LCS with r is w1 w2 w3 w5 here too.
    assert scores.rougeL == scores.rougeLsum
    assert same(scores, reference_scorer(LSUM).score(reference, candidate), LSUM.rouge_types)


def test_lsum_ignores_the_order_of_sentences():
    # Reference lines "a b c" / "d e", candidate lines "d e" / "a b c": each reference sentence
    # finds all its tokens in one candidate sentence: 5 hits of 5, P = R = F = 1. ROUGE-L on
    # the joined texts "a b c d e" / "d e a b c" finds "a b c" only: 3 of 5.
    scores = score_pair("a b c\nd e", "d e\na b c", LSUM)
    assert scores.rougeLsum == PRF(1.0, 1.0, 1.0)
    assert scores.rougeL == PRF(3 / 5, 3 / 5, f1(3 / 5, 3 / 5))
    assert same(scores, reference_scorer(LSUM).score("a b c\nd e", "d e\na b c"), LSUM.rouge_types)


def test_lsum_counts_a_token_no_more_often_than_it_occurs_and_picks_rouge_scores_lcs():
    # Reference lines "a b" / "a" (a twice, b once), candidate "b a" (each once).
    # LCS("a b", "b a") has length 1, and two of them: [a] and [b]. rouge-score's backtrack
    # (from the table's last cell: diagonal on a match, left only when strictly greater, else
    # up) keeps [a]: a hit (the candidate's only a is used up). "a" against "b a": [a], but no
    # a is left in the candidate: no hit. 1 hit: P 1/2, R 1/3. Keeping [b] would give 2.
    assert lcs_indices([0, 1], [1, 0]) == [0]
    assert summary_lcs_hits([[0, 1], [0]], [[1, 0]]) == 1
    scores = score_pair("a b\na", "b a", LSUM)
    assert scores.rougeLsum == PRF(1 / 2, 1 / 3, f1(1 / 2, 1 / 3))
    assert same(scores, reference_scorer(LSUM).score("a b\na", "b a"), LSUM.rouge_types)


@pytest.mark.parametrize(
    ("target", "prediction"),
    [
        ("", "a b"),
        ("a b", ""),
        ("\n\n", "a b"),
        ("...\n!!", "a b"),  # lines without a token
        ("a b\n\nc", "c\n\n\na b"),  # empty lines are no sentences
        ("one line only", "one line only"),
        ("x\r\ny", "x y"),  # only \n separates lines; \r is a separator inside the line
    ],
)
def test_lsum_edge_cases_against_rouge_score(target, prediction):
    scores = score_pair(target, prediction, LSUM)
    assert same(scores, reference_scorer(LSUM).score(target, prediction), LSUM.rouge_types)
    assert score_pairs([target], [prediction], LSUM).pair(0) == scores


def test_lsum_of_one_line_each_is_rouge_l():
    rng = random.Random(5)
    words = "a b c d e f the cat dog ran".split()
    for _ in range(200):
        target = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        prediction = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        scores = score_pair(target, prediction, LSUM)
        assert scores.rougeLsum == scores.rougeL


def test_split_summaries_finds_punkt_sentences_in_one_line():
    # One line, two sentences. On lines: one sentence, Lsum = L = "the cat sat" (3 of 6).
    # With Punkt: "The cat sat." / "The dog ran." against the candidate's one sentence
    # "the dog ran the cat sat": union of LCS "the cat sat" and "the dog ran": 6 of 6.
    target, prediction = "The cat sat. The dog ran.", "the dog ran the cat sat"
    assert punkt_sentences(target) == ["The cat sat.", "The dog ran."]
    lines = score_pair(target, prediction, LSUM).rougeLsum
    assert lines == PRF(3 / 6, 3 / 6, 3 / 6)
    split = RougeConfig(("rougeL", "rougeLsum"), split_summaries=True)
    scores = score_pair(target, prediction, split)
    assert scores.rougeLsum == PRF(1.0, 1.0, 1.0)
    assert same(scores, reference_scorer(split).score(target, prediction), split.rouge_types)
    assert score_pairs([target], [prediction], split).pair(0) == scores


def test_punkt_is_nltks_english_model():
    # NLTK's own documentation example of sent_tokenize (nltk/tokenize/__init__.py).
    text = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\n\nThanks."
    expected = ["Good muffins cost $3.88\nin New York.", "Please buy me\ntwo of them.", "Thanks."]
    assert punkt_sentences(text) == expected
    # Abbreviations of the English model do not end a sentence.
    assert punkt_sentences("Mr. Smith met Dr. Jones at 3 p.m. on Monday. They talked.") == [
        "Mr. Smith met Dr. Jones at 3 p.m. on Monday.",
        "They talked.",
    ]
    assert summary_sentences(text, False) == [  # the lines, the empty one left out
        "Good muffins cost $3.88",
        "in New York.  Please buy me",
        "two of them.",
        "Thanks.",
    ]
    assert summary_sentences(text, True) == expected
    # The compiled scorer takes lines: a line break inside a sentence becomes a space.
    assert (
        on_lines(text)
        == "Good muffins cost $3.88 in New York.\nPlease buy me two of them.\nThanks."
    )
    assert tokenize(on_lines(text)) == tokenize(text)


def test_rouge_n_up_to_9_hand_worked():
    # "a b c d e f g h i j" against itself minus its last token: 9-grams 2 of the target's 2?
    # Target 10 tokens: 2 nine-grams (a..i, b..j); prediction "a b c d e f g h i" 9 tokens: 1
    # nine-gram (a..i), shared. ROUGE-9: P 1/1, R 1/2. ROUGE-3: target 8, prediction 7, all 7
    # shared: P 1, R 7/8.
    config = RougeConfig(("rouge3", "rouge9"))
    scores = score_pair("a b c d e f g h i j", "a b c d e f g h i", config)
    assert scores.rouge9 == PRF(1.0, 1 / 2, f1(1.0, 1 / 2))
    assert scores.rouge3 == PRF(1.0, 7 / 8, f1(1.0, 7 / 8))
    short = score_pair("a b c", "a b c", config)  # fewer than 9 tokens: no nine-gram
    assert short.rouge9 == PRF(0.0, 0.0, 0.0)


def test_unstemmed_tokens_are_rouge_scores():
    from rouge_score.tokenizers import DefaultTokenizer

    text = "The runners were RUNNING to the organizations' caf\u00e9 \u212aelvin, 3.5 times."
    assert list(tokenize(text, use_stemmer=False)) == DefaultTokenizer(False).tokenize(text)
    assert tokenize_nltk(text, use_stemmer=False) == tokenize(text, use_stemmer=False)
    assert tokenize(text, use_stemmer=False) != tokenize(text)
    scores = score_pair("runners running", "runner runs", RougeConfig(("rouge1",), False))
    assert scores.rouge1 == PRF(0.0, 0.0, 0.0)  # stemmed they would match: runner, run
    assert score_pair("runners running", "runner runs", RougeConfig(("rouge1",))).rouge1.recall


# -- every option on real summaries ---------------------------------------------------------


@needs_polytope
@pytest.mark.parametrize(("use_stemmer", "split_summaries"), OPTIONS)
def test_every_type_and_option_on_real_summaries(use_stemmer, split_summaries):
    """All 11 types, each stemming and sentence choice, on a seeded sample of 150 outputs:
    ``score_pairs`` (the compiled batch), ``score_pair`` (Loupe's Python: n-grams, RapidFuzz's
    LCS, the union LCS) and rouge-score, all 33 values of every pair bit for bit."""
    config = RougeConfig(ROUGE_ALL_TYPES, use_stemmer, split_summaries)
    pairs = random.Random(20261128).sample(polytope_pairs(), 150)
    scorer = reference_scorer(config)
    batch = score_pairs([t for t, _ in pairs], [p for _, p in pairs], config)
    assert batch.types == ROUGE_ALL_TYPES and len(batch) == 150
    for index, (target, prediction) in enumerate(pairs):
        theirs = scorer.score(target, prediction)
        ours = score_pair(target, prediction, config)
        assert same(ours, theirs, ROUGE_ALL_TYPES), (index, target, prediction)
        assert batch.pair(index) == ours


@needs_polytope
@pytest.mark.parametrize(("use_stemmer", "split_summaries"), OPTIONS)
def test_the_reference_tokenizing_each_text_once_is_rouge_scores_own_scorer(
    use_stemmer, split_summaries
):
    """The tests' reference (``reference_scorer``: rouge-score's default tokenizer, each text
    tokenized once) gives rouge-score's own ``RougeScorer`` values, on pairs that share their
    reference summary, asked twice."""
    config = RougeConfig(ROUGE_ALL_TYPES, use_stemmer, split_summaries)
    pairs = polytope_pairs()[:20]
    ours = reference_scorer(config)
    theirs = RougeScorer(list(ROUGE_ALL_TYPES), use_stemmer, split_summaries)
    tokenized = []
    for _ in range(2):
        for target, prediction in pairs:
            assert ours.score(target, prediction) == theirs.score(target, prediction)
            # A caller's change to the tokens it got leaves the next score alone.
            ours._tokenizer.tokenize(target).append("tampered")
        tokenized.append(len(ours._tokenizer._tokens))
    assert tokenized[0] == tokenized[1] > 0  # the second round tokenized nothing again


@needs_polytope
def test_loupes_default_on_the_whole_release(rouge_reference):
    """Loupe's default (stemmed ROUGE-1, -2, -L, -Lsum, sentences on lines) on all 1,499
    outputs against rouge-score; and rouge-score's own default (no stemming)."""
    pairs = polytope_pairs()
    assert len(pairs) == 1499
    targets, predictions = [t for t, _ in pairs], [p for _, p in pairs]
    for config in (DEFAULT_ROUGE, RougeConfig(DEFAULT_ROUGE.rouge_types, use_stemmer=False)):
        theirs = rouge_reference.score(config, pairs)
        ours = score_pairs(targets, predictions, config).pair_list()
        unequal = [
            n
            for n, (pair, expected) in enumerate(zip(ours, theirs, strict=True))
            if not same(pair, expected, config.rouge_types)
        ]
        assert unequal == []
    # rougeLsum is not rougeL on these multi-sentence summaries.
    differs = sum(pair.rougeLsum != pair.rougeL for pair in ours)
    assert differs > 1000


# -- the configuration and its keys ---------------------------------------------------------


def test_config_defaults_order_and_keys():
    assert DEFAULT_ROUGE == RougeConfig(("rouge1", "rouge2", "rougeL", "rougeLsum"), True, False)
    config = RougeConfig(["rougeLsum", "rouge3", "rouge1"], use_stemmer=False, split_summaries=True)
    assert config.rouge_types == ("rouge1", "rouge3", "rougeLsum")  # Loupe's order
    assert config.keys() == (
        "rouge1_nostem_p", "rouge1_nostem_r", "rouge1_nostem_f",
        "rouge3_nostem_p", "rouge3_nostem_r", "rouge3_nostem_f",
        "rougeLsum_nostem_split_p", "rougeLsum_nostem_split_r", "rougeLsum_nostem_split_f",
    )  # fmt: skip
    assert DEFAULT_ROUGE.keys()[:3] == ("rouge1_p", "rouge1_r", "rouge1_f")
    assert DEFAULT_ROUGE.f_keys() == ("rouge1_f", "rouge2_f", "rougeL_f", "rougeLsum_f")
    # split_summaries only names ROUGE-Lsum's keys: the others do not depend on it.
    assert (
        RougeConfig(("rouge1", "rougeL"), split_summaries=True).keys()
        == RougeConfig(("rouge1", "rougeL")).keys()
    )
    assert RougeConfig.from_dict(config.as_dict()) == config
    assert config.scorer_call() == (
        'RougeScorer(["rouge1", "rouge3", "rougeLsum"], use_stemmer=False, split_summaries=True)'
    )


def test_every_key_parses_back_and_is_short_enough():
    assert len(ALL_ROUGE_KEYS) == len(set(ALL_ROUGE_KEYS)) == 72
    assert max(map(len, ALL_ROUGE_KEYS)) == 24  # the stored keys' limit
    for key in ALL_ROUGE_KEYS:
        parsed = parse_rouge_key(key)
        config = RougeConfig((parsed.rouge_type,), parsed.use_stemmer, parsed.split_summaries)
        assert key in config.keys()
    key = parse_rouge_key("rougeLsum_nostem_split_f")
    assert (key.rouge_type, key.use_stemmer, key.split_summaries, key.measure) == (
        "rougeLsum", False, True, "fmeasure"
    )  # fmt: skip
    assert key.short == "ROUGE-Lsum F (no stem, split)"
    assert parse_rouge_key("rouge1_f").title == "ROUGE-1 F1 (Porter stemming)"
    for other in ("far@3", "rouge1_split_f", "rouge10_f", "rougel_f", "rouge1_x", "apes", None):
        assert parse_rouge_key(other) is None


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"rouge_types": ["rougeLSum"]}, "rouge_types", "unknown ROUGE type"),
        ({"rouge_types": ["rouge10"]}, "rouge_types", "unknown ROUGE type"),
        ({"rouge_types": ["rouge0"]}, "rouge_types", "unknown ROUGE type"),
        ({"rouge_types": "rouge1"}, "rouge_types", "must be a list"),
        ({"rouge_types": []}, "rouge_types", "at least one"),
        ({"rouge_types": ["rouge1", "rouge1"]}, "rouge_types", "given twice"),
        ({"rouge_types": [1]}, "rouge_types", "unknown ROUGE type"),
        ({"use_stemmer": "yes"}, "use_stemmer", "true or false"),
        ({"split_summaries": 1}, "split_summaries", "true or false"),
        ({"stemmer": True}, None, "unknown ROUGE option"),
        (["rouge1"], None, "is an object"),
    ],
)
def test_bad_configurations_are_refused_with_the_field(data, field, message):
    with pytest.raises(RougeConfigError, match=message) as raised:
        RougeConfig.from_dict(data)
    assert raised.value.field == field
