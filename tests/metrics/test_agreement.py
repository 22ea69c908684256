"""Agreement: the README's hand-worked examples, the three levels and the input forms."""

from __future__ import annotations

import pytest

from scoring.metrics.agreement import (
    Score,
    Span,
    SpanMatching,
    UnknownAnnotatorError,
    best_match_f1,
    dice,
    fam_agreement,
    fam_alpha_masi,
    fam_best_match_f1,
    fam_jaccard,
    jaccard,
    masi_distance,
    match_spans,
    span_agreement,
    span_alpha,
    span_clusters,
    span_f1,
    span_kappa,
)
from scoring.metrics.fam import validate_fam
from scoring.metrics.polytope import parse_label, parse_subtype
from tests.metrics.agreement_examples import (
    EXACT,
    FAMS,
    SPANS,
    SPANS_3,
    SPANS_A,
    SPANS_B,
)

# --- per-item set measures -------------------------------------------------------------


def test_set_similarities_by_hand():
    assert jaccard(frozenset({3}), frozenset({3, 4})) == 0.5
    assert dice(frozenset({0, 1}), frozenset({0})) == pytest.approx(2 / 3)  # 2*1 / (2+1)
    assert jaccard(frozenset(), frozenset()) is None
    assert dice(frozenset(), frozenset()) is None
    assert jaccard(frozenset(), frozenset({1})) == 0.0


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ({1, 2}, {1, 2}, 0.0),  # equal: M = 1, J = 1
        ({3}, {3, 4}, 2 / 3),  # subset: 1 - 1/2 * 2/3
        ({1, 2}, {2, 3}, 8 / 9),  # overlap: 1 - 1/3 * 1/3
        ({1}, {2}, 1.0),  # disjoint
        (set(), set(), 0.0),  # two empty sets are equal
        (set(), {1}, 1.0),  # "no support" against support
    ],
)
def test_masi_distance_by_hand(a, b, distance):
    assert masi_distance(frozenset(a), frozenset(b)) == pytest.approx(distance)
    assert masi_distance(frozenset(b), frozenset(a)) == pytest.approx(distance)


def test_best_match_f1_per_facet():
    groups_a = [frozenset({0, 1})]
    groups_b = [frozenset({0}), frozenset({1})]
    assert best_match_f1(groups_a, groups_b, dice) == pytest.approx(2 / 3)
    # Jaccard as group similarity: {0,1} vs {0} is 1/2 on both sides.
    assert best_match_f1(groups_a, groups_b, jaccard) == pytest.approx(1 / 2)
    assert best_match_f1(groups_a, groups_a, dice) == 1.0
    assert best_match_f1(groups_a, [frozenset({7})], dice) == 0.0
    assert best_match_f1(groups_a, [], dice) == 0.0
    assert best_match_f1([], [], dice) is None


# --- FAM measures: the README's worked examples ----------------------------------------


def test_fam_jaccard_worked_example():
    result = fam_jaccard(FAMS)
    # facet 0: {0,1} vs {0,1} = 1; facet 1: {3} vs {3,4} = 1/2; facet 2 skipped.
    assert result.overall == Score(0.75, n=2, excluded=1)
    assert result.document("d1") == result.pair("A", "B") == result.cell("d1", "B", "A")
    assert result.options == {"both_empty": "skip"}
    # both_empty="agree": (1 + 1/2 + 1) / 3
    agree = fam_jaccard(FAMS, both_empty="agree")
    assert agree.overall.value == pytest.approx(5 / 6)
    assert agree.overall.excluded == 0


def test_fam_best_match_f1_worked_example():
    result = fam_best_match_f1(FAMS)
    # facet 0: P = R = 2/3; facet 1: {3} vs {3,4} Dice 2/3; facet 2 skipped.
    assert result.overall.value == pytest.approx(2 / 3)
    assert (result.overall.n, result.overall.excluded) == (2, 1)
    # With group Jaccard: facet 0 gives 1/2, facet 1 gives 1/2.
    assert fam_best_match_f1(FAMS, group_similarity="jaccard").overall.value == pytest.approx(0.5)


def test_fam_alpha_masi_worked_example():
    result = fam_alpha_masi(FAMS)
    # D_o = 2/9, D_e = 38/45, alpha = 1 - 5/19 = 14/19.
    assert result.overall.value == pytest.approx(14 / 19)
    assert result.overall.n == 6
    # Empty support as missing: unit (∅, ∅) drops out; D_o = 1/3, D_e = 7/9, alpha = 4/7.
    missing = fam_alpha_masi(FAMS, empty_support="missing")
    assert missing.overall.value == pytest.approx(4 / 7)
    assert (missing.overall.n, missing.overall.excluded) == (4, 1)


def test_fam_agreement_bundles_the_three_measures():
    bundle = fam_agreement(FAMS, both_empty="agree")
    assert bundle.jaccard.overall.value == pytest.approx(5 / 6)
    assert bundle.best_match_f1.overall.value == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert bundle.alpha_masi.overall.value == pytest.approx(14 / 19)


def test_fam_levels_with_three_annotators_and_two_documents():
    documents = {
        "d1": {
            "A": [[{0, 1}], [{2}]],
            "B": [[{0}], [{2}]],
            "C": [[{0, 1}], [{3}]],
        },
        "d2": {"A": [[{4, 5}]], "B": [[{5}]]},  # C did not annotate d2
    }
    result = fam_jaccard(documents)
    # d1: A-B (1/2, 1) -> 3/4; A-C (1, 0) -> 1/2; B-C (1/2, 0) -> 1/4; d2: A-B 1/2.
    assert result.cell("d1", "A", "B").value == pytest.approx(0.75)
    assert result.cell("d1", "A", "C").value == pytest.approx(0.5)
    assert result.cell("d1", "C", "B").value == pytest.approx(0.25)
    assert result.cell("d2", "A", "B").value == pytest.approx(0.5)
    assert result.document("d1").value == pytest.approx(3 / 6)
    assert result.document("d2").value == pytest.approx(0.5)
    assert result.pair("A", "B").value == pytest.approx(2 / 3)  # (1/2 + 1 + 1/2) / 3
    assert result.pair("A", "C").value == pytest.approx(0.5)
    # Overall: mean over all seven (document, facet, pair) units = 3.5 / 7.
    assert result.overall == Score(0.5, n=7)
    assert result.annotators == ("A", "B", "C")
    assert list(result.per_pair) == [("A", "B"), ("A", "C"), ("B", "C")]
    with pytest.raises(UnknownAnnotatorError, match="document 'd2'"):
        result.cell("d2", "A", "C")


def test_fam_inputs_accept_validated_fams():
    fam_a = validate_fam({0: [[0, 1]], 1: [[3]]}, n_sentences=5, n_facets=3)
    fam_b = validate_fam([[[0], [1]], [[3, 4]], []], n_sentences=5, n_facets=3)
    assert fam_jaccard({"d1": {"A": fam_a, "B": fam_b}}).overall.value == 0.75


def test_repeated_group_counts_once():
    repeated = validate_fam(
        [[[0, 1], [0, 1]]], n_sentences=3, n_facets=1, allow_duplicate_groups=True
    )
    single = [[{0, 1}]]
    assert fam_best_match_f1({"d": {"A": repeated, "B": single}}).overall.value == 1.0


# --- FAM edge cases --------------------------------------------------------------------


def test_identical_fams_agree_perfectly():
    fam = [[{0, 1}, {4}], [{2}], [{5, 6}]]
    bundle = fam_agreement({"d": {"A": fam, "B": fam, "C": fam}})
    assert bundle.jaccard.overall.value == 1.0
    assert bundle.best_match_f1.overall.value == 1.0
    assert bundle.alpha_masi.overall.value == 1.0


def test_disjoint_fams():
    bundle = fam_agreement({"d": {"A": [[{0}], [{1}]], "B": [[{2}], [{3}]]}})
    assert bundle.jaccard.overall.value == 0.0
    assert bundle.best_match_f1.overall.value == 0.0
    # Four distinct singletons, every distance 1: D_o = 1, D_e = 4*3*1 / (4*3) = 1: alpha 0.
    assert bundle.alpha_masi.overall.value == pytest.approx(0.0)


def test_one_side_without_support_scores_zero():
    result = fam_jaccard({"d": {"A": [[{0}]], "B": [[]]}})
    assert result.overall == Score(0.0, n=1)


def test_no_supported_facet_is_undefined_not_nan():
    result = fam_agreement({"d": {"A": [[], []], "B": [[], []]}})
    for measure in (result.jaccard, result.best_match_f1):
        assert measure.overall.value is None
        assert "no facet has support" in measure.overall.reason
        assert measure.overall.excluded == 2
    # Every value is the empty set: alpha is 0/0.
    assert result.alpha_masi.overall.value is None
    assert "every pairable value is frozenset()" in result.alpha_masi.overall.reason
    assert fam_jaccard({"d": {"A": [[]], "B": [[]]}}, both_empty="agree").overall.value == 1.0


# --- span measures: the README's worked examples ---------------------------------------


def test_matching_by_hand():
    spans_a = sorted(Span(*s) for s in SPANS_A)
    spans_b = sorted(Span(*s) for s in SPANS_B)
    assert match_spans(spans_a, spans_b, SpanMatching()) == ((0, 0, 1.0), (1, 1, 0.8))
    assert match_spans(spans_a, spans_b, EXACT) == ((0, 0, 1.0),)
    assert match_spans(spans_a, spans_b, SpanMatching(min_iou=0.9)) == ((0, 0, 1.0),)


def test_greedy_matching_takes_the_highest_iou_first():
    # A [0,10) overlaps B [0,4) (IoU 0.4) and B [2,10) (IoU 0.8): it takes B [2,10).
    spans_a = [Span(0, 10, "Addition", "Subject")]
    spans_b = [Span(0, 4, "Addition", "Subject"), Span(2, 10, "Addition", "Subject")]
    assert match_spans(spans_a, spans_b, SpanMatching()) == ((0, 1, 0.8),)


def test_span_f1_worked_example():
    assert span_f1(SPANS, matching=EXACT).overall == Score(1 / 3, n=6)  # 2*1 / (3+3)
    result = span_f1(SPANS)
    assert result.overall.value == pytest.approx(2 / 3)  # 2*2 / (3+3)
    assert result.options == {"mode": "partial", "min_iou": 0.0}


def test_span_kappa_worked_example():
    # Subtype: p_o = 1/2, p_e = 1/4, kappa = 1/3.
    subtype = span_kappa(SPANS, attribute="subtype")
    assert subtype.pair("A", "B").value == pytest.approx(1 / 3)
    assert subtype.pair("A", "B").excluded == 2  # A3 and B3 are unmatched
    assert subtype.measure == "span_kappa_subtype"
    # Label: p_o = 1, p_e = 1/2, kappa = 1.
    assert span_kappa(SPANS, attribute="label").overall.value == pytest.approx(1.0)


def test_span_alpha_worked_example():
    # Subtype: D_o = 1/2, D_e = 5/6, alpha = 2/5.
    subtype = span_alpha(SPANS, attribute="subtype")
    assert subtype.overall.value == pytest.approx(0.4)
    assert (subtype.overall.n, subtype.overall.excluded) == (4, 2)
    assert span_alpha(SPANS, attribute="label").overall.value == pytest.approx(1.0)


def test_three_annotators_worked_example():
    spans = {a: sorted(Span(*s) for s in v) for a, v in SPANS_3["d1"].items()}
    clusters = span_clusters(spans, ["A", "B", "C"], SpanMatching())
    assert sorted(map(sorted, clusters)) == [
        [("A", 0), ("B", 0), ("C", 0)],
        [("A", 1), ("B", 1), ("C", 1)],
        [("A", 2)],
        [("B", 2)],
    ]
    # Alpha over {Add, Add, Add} and {Om, In, Om}: D_o = 1/3, D_e = 11/15, alpha = 6/11.
    alpha = span_alpha(SPANS_3)
    assert alpha.overall.value == pytest.approx(6 / 11)
    assert alpha.document("d1").value == pytest.approx(6 / 11)
    assert alpha.pair("A", "B").value == pytest.approx(0.4)  # the two-annotator example
    # Kappa: A-B 1/3, A-C 1, B-C 1/3; Light's kappa = 5/9.
    kappa = span_kappa(SPANS_3)
    assert kappa.pair("A", "C").value == pytest.approx(1.0)
    assert kappa.pair("B", "C").value == pytest.approx(1 / 3)
    assert kappa.overall.value == pytest.approx(5 / 9)
    # F1: A-B 4/6, A-C 4/5, B-C 4/5; pooled 12/16.
    f1 = span_f1(SPANS_3)
    assert f1.pair("A", "C").value == pytest.approx(0.8)
    assert f1.overall == Score(0.75, n=16)


def test_span_agreement_bundle_and_input_forms():
    as_dicts = {
        "d1": {
            annotator: [
                dict(zip(("start", "end", "subtype", "label"), s, strict=True)) for s in spans
            ]
            for annotator, spans in SPANS["d1"].items()
        }
    }
    bundle = span_agreement(as_dicts, lengths={"d1": 70})
    assert bundle.f1.overall.value == pytest.approx(2 / 3)
    assert bundle.kappa_subtype.overall.value == pytest.approx(1 / 3)
    assert bundle.kappa_label.overall.value == pytest.approx(1.0)
    assert bundle.alpha_subtype.overall.value == pytest.approx(0.4)
    assert bundle.alpha_label.overall.value == pytest.approx(1.0)


# --- names: raw strings, or normalized by a callable ---------------------------------------

# The same two errors, named by A with the BART workbook's spellings and by B officially.
WORKBOOK = [(0, 10, "Inaccuracy_internal", "Event Entity-Subject"),
            (20, 30, "Omission", "Whole Sentence")]  # fmt: skip
OFFICIAL = [(0, 10, "Inaccuracy Intrinsic", "Subject"), (20, 30, "omission", "Whole Sentence")]
SPELLINGS = {"d1": {"A": WORKBOOK, "B": OFFICIAL}}


def test_raw_names_disagree_on_spelling():
    # Subtypes: (Inaccuracy_internal, Inaccuracy Intrinsic) and (Omission, omission): four
    # distinct strings, p_o = 0, p_e = 0, kappa = 0. Labels: (Event Entity-Subject, Subject)
    # and (Whole Sentence, Whole Sentence): p_o = 1/2, p_e = 1/2 * 1/2 = 1/4, kappa = 1/3.
    assert span_kappa(SPELLINGS).overall.value == 0.0
    assert span_kappa(SPELLINGS, attribute="label").overall.value == pytest.approx(1 / 3)
    assert span_kappa(SPELLINGS).options["normalize"] is None


def test_polytope_parsers_make_spellings_agree():
    kappa = span_kappa(SPELLINGS, normalize=parse_subtype)
    assert kappa.overall.value == 1.0
    assert kappa.options["normalize"] == "scoring.metrics.polytope.taxonomy.parse_subtype"
    alpha = span_alpha(SPELLINGS, attribute="label", normalize=parse_label)
    assert alpha.overall.value == 1.0
    both = span_agreement(SPELLINGS, normalize_subtype=parse_subtype, normalize_label=parse_label)
    for result in (both.kappa_subtype, both.kappa_label, both.alpha_subtype, both.alpha_label):
        assert result.overall.value == 1.0
    assert both.kappa_label.options["normalize"].endswith("parse_label")
    assert both.f1.overall.value == 1.0  # the matching ignores names


def test_a_normalizer_only_touches_its_attribute():
    # Labels stay raw when only subtypes are normalized, so label kappa is unchanged.
    bundle = span_agreement(SPELLINGS, normalize_subtype=parse_subtype)
    assert bundle.kappa_subtype.overall.value == 1.0
    assert bundle.kappa_label.overall.value == pytest.approx(1 / 3)
    assert bundle.alpha_label.options["normalize"] is None


def test_a_string_normalizer_keeps_readable_reasons():
    same = {"d1": {"A": [(0, 5, "Inacc Intrinsic", "Subject")],
                   "B": [(0, 5, "inaccuracy intrinsic", "Subject")]}}  # fmt: skip
    score = span_kappa(same, normalize=lambda name: parse_subtype(name).value).pair("A", "B")
    assert score.value is None
    assert "'Inaccuracy Intrinsic'" in score.reason  # one category everywhere: kappa is 0/0
