"""Per-output leaderboard scores: hand-worked ROUGE and FAR family, notes, errors, metric keys."""

from __future__ import annotations

import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.fam import validate_fam
from scoring.metrics.far import ExtractedIndexError, InvalidKError
from scoring.metrics.leaderboard import (
    FAR_MEASURES,
    ROUGE_KEYS,
    OutputScores,
    far_key,
    outputs_rouge,
    parse_far_key,
    score_output,
)
from scoring.metrics.rouge import DEFAULT_ROUGE, ROUGE_ALL_TYPES, RougeConfig, score_pair
from tests.rouge_helpers import reference_scorer

NO_REFERENCE = "ROUGE: the document has no reference"
NO_SUPPORT = "FAR: the FAM has no support group"
NO_FAM = "FAR: the document has no gold or released FAM"

# ROUGE is scored on the sentences one a line (ROUGE-1/2/L do not see the lines). Tokens
# (lower-cased, non-alphanumerics dropped, Porter-stemmed; words of 3 characters or fewer
# are kept as they are):
#   reference "A dog saw the cat. The cat ran." -> a dog saw the cat the cat ran   (8 tokens)
#   summary   "The cat saw a dog! Dogs ran."    -> the cat saw a dog dog ran       (7 tokens)
#   ("Dogs" stems to "dog".)
REFERENCE = ["A dog saw the cat.", "The cat ran."]
SUMMARY = ["The cat saw a dog!", "Dogs ran."]
# ROUGE-1: reference counts a1 dog1 saw1 the2 cat2 ran1, summary the1 cat1 saw1 a1 dog2 ran1;
#   clipped overlap a1 + dog1 + saw1 + the1 + cat1 + ran1 = 6 -> P 6/7, R 6/8, F 12/15.
# ROUGE-2: reference bigrams a-dog dog-saw saw-the the-cat(x2) cat-the cat-ran (7); summary
#   the-cat cat-saw saw-a a-dog dog-dog dog-ran (6); overlap the-cat 1 + a-dog 1 = 2
#   -> P 2/6, R 2/7, F 4/13.
# ROUGE-L: longest common subsequences have 3 tokens ("the cat ran", "a dog ran"); nothing of
#   4 exists ("saw" comes before "the cat" in the reference but after it in the summary)
#   -> P 3/7, R 3/8, F 6/15.
HAND_ROUGE = {
    "rouge1": (6, 7, 8),
    "rouge2": (2, 6, 7),
    "rougeL": (3, 7, 8),
}  # (overlap, summary count, reference count)

# A document of 6 sentences and 3 facets:
#   facet 0: support groups {1} and {2, 4}; facet 1: group {3}; facet 2: none (unsupported).
#   Support union S = {1, 2, 3, 4}, |S| = 4; FAR's denominator is the 2 supported facets.
FAM = validate_fam({0: [[1], [2, 4]], 1: [[3]], 2: []}, n_sentences=6, n_facets=3)
EXTRACTED = [2, 0, 4, 3, 1]
# k   considered E     hits E∩S     SAP   SAR   SAF1 = 2h/(|E|+|S|)   covered facets  FAR
# 1   {2}              {2}          1/1   1/4   2/5                   none            0/2
# 3   {0, 2, 4}        {2, 4}       2/3   2/4   4/7                   0 (by {2, 4})   1/2
# 4   {0, 2, 3, 4}     {2, 3, 4}    3/4   3/4   6/8                   0, 1            2/2
# 10  {0, 1, 2, 3, 4}  {1, 2, 3, 4} 4/5   4/4   8/9                   0, 1            2/2
HAND_FAR = {
    1: {"sap": 1.0, "sar": 1 / 4, "saf1": 2 / 5, "far": 0.0},
    3: {"sap": 2 / 3, "sar": 2 / 4, "saf1": 4 / 7, "far": 1 / 2},
    4: {"sap": 3 / 4, "sar": 3 / 4, "saf1": 6 / 8, "far": 1.0},
    10: {"sap": 4 / 5, "sar": 1.0, "saf1": 8 / 9, "far": 1.0},
}


def far_keys(values) -> set[str]:
    return {key for key in values if parse_far_key(key) is not None}


def test_rouge_hand_worked():
    result = score_output(summary=SUMMARY, reference=REFERENCE)
    assert isinstance(result, OutputScores)
    assert set(result.values) == set(ROUGE_KEYS) and result.notes == ()
    for rouge, (overlap, n_summary, n_reference) in HAND_ROUGE.items():
        precision, recall = overlap / n_summary, overlap / n_reference
        assert result.values[f"{rouge}_p"] == pytest.approx(precision, abs=1e-15)
        assert result.values[f"{rouge}_r"] == pytest.approx(recall, abs=1e-15)
        # F = 2PR / (P + R) = 2 * overlap / (summary count + reference count)
        f = 2 * overlap / (n_summary + n_reference)
        assert result.values[f"{rouge}_f"] == pytest.approx(f, abs=1e-15)


@pytest.mark.parametrize(
    "config",
    [
        DEFAULT_ROUGE,
        RougeConfig(ROUGE_ALL_TYPES, use_stemmer=False),
        RougeConfig(("rouge2", "rougeLsum"), use_stemmer=False, split_summaries=True),
    ],
)
def test_rouge_equals_rouge_score_with_the_sentences_on_lines(config):
    scorer = reference_scorer(config)
    cases = [
        (REFERENCE, SUMMARY),
        (["Stocks fell sharply on Monday."], ["Stocks were falling", "on Monday, sharply."]),
        (["One sentence only"], ["completely", "unrelated words"]),
        (["Two men were held. Police said so."], ["Police held two men.", "They were charged."]),
    ]
    for reference, summary in cases:
        expected = scorer.score("\n".join(reference), "\n".join(summary))
        result = score_output(summary=summary, reference=reference, rouge_config=config)
        assert set(result.values) == set(config.keys())
        for rouge, score in expected.items():
            got = tuple(result.values[f"{config.name(rouge)}_{s}"] for s in "prf")
            assert got == (score.precision, score.recall, score.fmeasure), (rouge, summary)


def test_rouge_of_a_summary_without_tokens_is_zero():
    # "!!" has no alphanumeric character: 0 tokens, so every ROUGE score is 0.0 (not NaN).
    result = score_output(summary=["!!"], reference=REFERENCE)
    assert {result.values[key] for key in ROUGE_KEYS} == {0.0}


def test_far_family_hand_worked_at_several_k():
    result = score_output(
        summary=SUMMARY, reference=REFERENCE, extracted=EXTRACTED, fam=FAM, ks=(1, 3, 4, 10)
    )
    assert result.notes == ()
    expected = {far_key(m, k) for m in FAR_MEASURES for k in HAND_FAR}
    assert far_keys(result.values) == expected
    assert set(result.values) == set(ROUGE_KEYS) | expected
    for k, measures in HAND_FAR.items():
        for measure, value in measures.items():
            assert result.values[f"{measure}@{k}"] == pytest.approx(value, abs=1e-15), (k, measure)


def test_default_k_is_3():
    result = score_output(summary=SUMMARY, reference=None, extracted=EXTRACTED, fam=FAM)
    assert set(result.values) == {far_key(m, 3) for m in FAR_MEASURES}
    assert result.values["far@3"] == 1 / 2 and result.values["sap@3"] == 2 / 3


def test_a_repeated_index_counts_once():
    # Extracted [3, 3, 1] with k = 2: E = {3}; hit {3}: SAP 1/1, SAR 1/4, SAF1 2/5;
    # facet 1 is covered by {3}, facet 0 is not: FAR 1/2.
    result = score_output(summary=SUMMARY, reference=None, extracted=[3, 3, 1], fam=FAM, ks=(2,))
    assert result.values == pytest.approx(
        {"sap@2": 1.0, "sar@2": 1 / 4, "saf1@2": 2 / 5, "far@2": 1 / 2}, abs=1e-15
    )


def test_fam_without_support_gives_no_far_and_a_note():
    noise = validate_fam({0: [], 1: []}, n_sentences=4, n_facets=2)
    result = score_output(
        summary=SUMMARY, reference=REFERENCE, extracted=[0, 1], fam=noise, ks=(1, 3)
    )
    assert far_keys(result.values) == set()
    assert set(result.values) == set(ROUGE_KEYS)  # ROUGE is still there
    assert result.notes == (NO_SUPPORT,)  # one note, not one per k


@pytest.mark.parametrize("reference", [None, []])
def test_no_reference_gives_no_rouge_and_a_note(reference):
    result = score_output(summary=SUMMARY, reference=reference, extracted=EXTRACTED, fam=FAM)
    assert not set(result.values) & set(ROUGE_KEYS)
    assert far_keys(result.values) == {far_key(m, 3) for m in FAR_MEASURES}
    assert result.notes == (NO_REFERENCE,)


def test_no_reference_and_no_support_gives_nothing_and_both_notes():
    noise = validate_fam({0: []}, n_sentences=2, n_facets=1)
    result = score_output(summary=["x"], reference=None, extracted=[0], fam=noise)
    assert dict(result.values) == {}
    assert result.notes == (NO_REFERENCE, NO_SUPPORT)


def test_abstractive_output_gets_only_rouge():
    # extracted None: an abstractive output; the FAM is there but the FAR family needs indices.
    result = score_output(summary=SUMMARY, reference=REFERENCE, extracted=None, fam=FAM)
    assert set(result.values) == set(ROUGE_KEYS)
    assert result.notes == ()


def test_extractive_output_without_a_fam_gets_a_note():
    result = score_output(summary=SUMMARY, reference=REFERENCE, extracted=EXTRACTED, fam=None)
    assert set(result.values) == set(ROUGE_KEYS)
    assert result.notes == (NO_FAM,)


@pytest.mark.parametrize("bad", [[0, 6], [-1], [0, 2.0], [True]])
def test_a_bad_extracted_index_raises_a_metrics_error(bad):
    # Every index is checked, also those after the first k (here k = 1).
    with pytest.raises(ExtractedIndexError, match="doc-7") as caught:
        score_output(
            summary=SUMMARY, reference=REFERENCE, extracted=bad, fam=FAM, ks=(1,), document="doc-7"
        )
    assert isinstance(caught.value, MetricsError)


@pytest.mark.parametrize("k", [0, -2, True, 2.5])
def test_a_bad_k_raises_a_metrics_error(k):
    with pytest.raises(InvalidKError) as caught:
        score_output(summary=SUMMARY, reference=None, extracted=EXTRACTED, fam=FAM, ks=(k,))
    assert isinstance(caught.value, MetricsError)


# ------------------------------------------------------------------------- far_key / parse


def test_far_key_examples():
    assert far_key("far", 3) == "far@3"
    assert far_key("saf1", 10) == "saf1@10"


@pytest.mark.parametrize("measure", FAR_MEASURES)
@pytest.mark.parametrize("k", [1, 2, 3, 5, 10, 123])
def test_far_key_round_trip(measure, k):
    key = far_key(measure, k)
    assert parse_far_key(key) == (measure, k)
    assert far_key(*parse_far_key(key)) == key


@pytest.mark.parametrize("measure", ["rouge1_f", "FAR", "far_per_sentence", ""])
def test_far_key_rejects_an_unknown_measure(measure):
    with pytest.raises(MetricsError, match="unknown FAR-family measure"):
        far_key(measure, 3)


@pytest.mark.parametrize("k", [None, 0, -1, True, 3.0, "3"])
def test_far_key_rejects_a_bad_k(k):
    with pytest.raises(MetricsError):
        far_key("far", k)


@pytest.mark.parametrize(
    "key",
    [
        "rouge1_f",
        "far",
        "far@",
        "@3",
        "far@0",
        "far@-1",
        "far@+3",
        "far@3.0",
        "far@ 3",
        "far@x",
        "FAR@3",
        "far_per_sentence@3",
        "far@3@4",
        "far@²",  # a superscript digit: str.isdigit() is true, but int() refuses it
    ],
)
def test_parse_far_key_returns_none_for_other_names(key):
    assert parse_far_key(key) is None


def test_outputs_rouge_is_score_outputs_rouge_for_many_outputs_at_once():
    items = [
        (["The cat sat on the mat.", "It was happy."], ["The cat on the mat."]),
        (None, ["No reference here."]),
        ([], ["An empty reference is none."]),
        (["Police arrested two men."], ["Two men were arrested by police.", "Nobody was hurt."]),
        (["Same words."], []),
        # Two systems with the same output: scored once, the same scores for both.
        (["The cat sat on the mat.", "It was happy."], ["The cat on the mat."]),
        (["The cat sat on the mat."], ["It was happy."]),
    ]
    unstemmed = RougeConfig(("rouge1", "rougeLsum"), use_stemmer=False)
    for config in (DEFAULT_ROUGE, unstemmed):
        batch = outputs_rouge(items, config)
        assert batch[5] == batch[0] and batch[6] != batch[0]
        assert batch[1] is None and batch[2] is None
        for (reference, summary), rouge in zip(items, batch, strict=True):
            alone = score_output(summary=summary, reference=reference, rouge_config=config)
            given = score_output(
                summary=summary, reference=reference, rouge=rouge, rouge_config=config
            )
            assert given == alone
            if rouge is not None:
                assert rouge == score_pair("\n".join(reference), "\n".join(summary), config)
    assert outputs_rouge([]) == []
