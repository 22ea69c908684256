"""Agreement: edge cases, undefined figures with reasons, the result type and typed errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.metrics.agreement import (
    AgreementError,
    EmptyInputError,
    FacetCountMismatchError,
    InvalidAnnotationError,
    InvalidOptionError,
    Score,
    SentenceCountMismatchError,
    SpanMatching,
    TooFewAnnotatorsError,
    UnknownAnnotatorError,
    UnknownDocumentError,
    cohen_kappa,
    fam_agreement,
    fam_alpha_masi,
    fam_best_match_f1,
    fam_jaccard,
    krippendorff_alpha,
    masi_distance,
    span_agreement,
    span_alpha,
    span_f1,
    span_kappa,
)
from scoring.metrics.fam import validate_fam
from scoring.metrics.polytope import UnknownSubtypeError, parse_label, parse_subtype
from tests.metrics.agreement_examples import (
    FAM_A,
    FAM_B,
    FAMS,
    SPANS,
    SPANS_A,
    SPANS_B,
)

# --- span edge cases -------------------------------------------------------------------


def test_identical_span_annotators_agree_perfectly():
    bundle = span_agreement({"d": {"A": SPANS_A, "B": list(reversed(SPANS_A))}})
    for measure in (bundle.f1, bundle.kappa_subtype, bundle.kappa_label):
        assert measure.overall.value == 1.0
    assert bundle.alpha_subtype.overall.value == 1.0


def test_disjoint_spans():
    bundle = span_agreement(
        {"d": {"A": [(0, 5, "Addition", "Subject")], "B": [(5, 9, "Omission", "Object")]}}
    )
    assert bundle.f1.overall == Score(0.0, n=2)  # half-open spans [0,5) and [5,9) do not touch
    assert bundle.kappa_subtype.pair("A", "B").reason == "no item to compare"
    assert bundle.kappa_subtype.overall.reason == "every pair kappa is undefined"
    assert bundle.alpha_subtype.overall.reason == "no unit has values from two annotators"
    assert bundle.alpha_subtype.overall.excluded == 2


def test_no_span_at_all_is_undefined():
    result = span_f1({"d": {"A": [], "B": []}})
    assert result.overall.value is None
    assert result.overall.reason == "neither annotator marked a span"


def test_kappa_with_one_category_everywhere_is_undefined():
    spans = [(0, 5, "Omission", "Subject"), (9, 12, "Omission", "Object")]
    result = span_kappa({"d": {"A": spans, "B": spans}})
    assert result.overall.value is None
    assert "gave 'Omission' to every item" in result.pair("A", "B").reason
    assert result.pair("A", "B").n == 2
    # The same data's alpha is 0/0 too.
    assert (
        "every pairable value is 'Omission'"
        in span_alpha({"d": {"A": spans, "B": spans}}).overall.reason
    )


def test_light_kappa_leaves_out_undefined_pairs_and_says_so():
    one = [(0, 5, "Omission", "Subject"), (9, 12, "Addition", "Object")]
    same = [(0, 5, "Omission", "Subject"), (9, 12, "Addition", "Object")]
    stray = [(20, 25, "Omission", "Subject")]
    result = span_kappa({"d": {"A": one, "B": same, "C": stray}})
    # A-B: kappa 1; A-C and B-C: no matched span, undefined.
    assert result.overall == Score(1.0, n=2, excluded=2)
    assert result.document("d") == Score(1.0, n=2, excluded=2)


# --- coefficients ----------------------------------------------------------------------


def test_coefficients_reject_degenerate_input_explicitly():
    assert krippendorff_alpha([], masi_distance).reason == "no unit has values from two annotators"
    assert krippendorff_alpha([["x"], ["y"]], masi_distance).excluded == 2
    assert cohen_kappa([]).reason == "no item to compare"
    # Different single categories: p_e = 0, kappa = (0 - 0) / 1 = 0, a defined value.
    assert cohen_kappa([("a", "b"), ("a", "b")]) == Score(0.0, n=2)


def test_score_never_holds_nan():
    with pytest.raises(ValueError, match="finite"):
        Score(math.nan, n=1)
    with pytest.raises(ValueError, match="either a value or a reason"):
        Score(None, n=0)
    with pytest.raises(ValueError, match="either a value or a reason"):
        Score(0.5, n=1, reason="why")


def test_result_is_frozen_and_json_ready():
    result = fam_agreement(FAMS).jaccard
    with pytest.raises(AttributeError):
        result.overall = Score(1.0, n=1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        result.per_document["d2"] = Score(1.0, n=1)  # type: ignore[index]
    data = json.loads(json.dumps(result.as_dict()))
    assert data["overall"] == {"value": 0.75, "n": 2, "excluded": 1, "reason": None}
    assert data["per_pair"] == [
        {"annotators": ["A", "B"], "value": 0.75, "n": 2, "excluded": 1, "reason": None}
    ]
    assert data["per_document_pair"][0]["document"] == "d1"


# --- typed errors ----------------------------------------------------------------------


def test_fewer_than_two_annotators_names_the_document():
    with pytest.raises(TooFewAnnotatorsError, match="document 'd7'.*at least two"):
        fam_jaccard({"d1": FAMS["d1"], "d7": {"A": FAM_A}})
    with pytest.raises(TooFewAnnotatorsError, match="document 'd7'"):
        span_f1({"d7": {"A": SPANS_A}})


def test_no_documents():
    with pytest.raises(EmptyInputError):
        fam_jaccard({})
    with pytest.raises(EmptyInputError):
        span_agreement({})


def test_unknown_document():
    result = fam_jaccard(FAMS)
    with pytest.raises(UnknownDocumentError, match="document 'nope'") as caught:
        result.document("nope")
    assert isinstance(caught.value, KeyError)
    with pytest.raises(UnknownDocumentError, match="document 'd1'.*facet counts"):
        fam_jaccard(FAMS, n_facets={"other": 3})
    with pytest.raises(UnknownDocumentError, match="document 'd1'.*text lengths"):
        span_f1(SPANS, lengths={"other": 100})
    with pytest.raises(UnknownAnnotatorError):
        result.pair("A", "Z")


def test_mismatched_facet_counts_name_document_and_annotator():
    with pytest.raises(FacetCountMismatchError, match="document 'd1', annotator 'B': has 2 facets"):
        fam_jaccard({"d1": {"A": FAM_A, "B": FAM_B[:2]}})
    with pytest.raises(
        FacetCountMismatchError, match="annotator 'A': has 3 facets but the reference has 4"
    ):
        fam_jaccard(FAMS, n_facets={"d1": 4})


def test_fams_for_different_sentence_counts():
    fam_a = validate_fam([[[0]]], n_sentences=5, n_facets=1)
    fam_b = validate_fam([[[0]]], n_sentences=6, n_facets=1)
    with pytest.raises(SentenceCountMismatchError, match="document 'd'"):
        fam_jaccard({"d": {"A": fam_a, "B": fam_b}})


@pytest.mark.parametrize(
    ("fam", "message"),
    [
        ([[set()]], "facet 0, group 0: empty support group"),
        ([[{0}], [{1}, {-1}]], "facet 1, group 1: sentence index -1"),
        ([[[True]]], "sentence index True is not"),
        ([["ab"]], "a group must be a set"),
        ([5], "facet 0: expected a list of support groups"),
        ({0: [[1]]}, "validate a dict with scoring.metrics.fam.validate_fam"),
    ],
)
def test_malformed_fams(fam, message):
    with pytest.raises(InvalidAnnotationError, match=message) as caught:
        fam_jaccard({"d": {"A": [[{0}]], "B": fam}})
    assert caught.value.annotator == "B"
    assert caught.value.document == "d"


@pytest.mark.parametrize(
    ("span", "message"),
    [
        ((5, 5, "Addition", "Subject"), r"\[5, 5\) is not a non-empty span"),
        ((-1, 5, "Addition", "Subject"), "offset >= 0"),
        ((0, 500, "Addition", "Subject"), "ends after the text's length 100"),
        ((0.5, 5, "Addition", "Subject"), "start 0.5 is not an integer"),
        ((0, 5, "", "Subject"), "subtype '' is not a non-empty string"),
        ((0, 5, "Addition", None), "label None is not"),
        ({"start": 0, "end": 5}, r"span lacks \['label', 'subtype'\]"),
        ((0, 5, "Addition"), "expected a Span"),
    ],
)
def test_malformed_spans_name_the_span(span, message):
    with pytest.raises(InvalidAnnotationError, match=message) as caught:
        span_f1({"d": {"A": SPANS_A, "B": [SPANS_B[0], span]}}, lengths={"d": 100})
    assert (caught.value.document, caught.value.annotator, caught.value.span) == ("d", "B", 1)
    assert str(caught.value).startswith("document 'd', annotator 'B', span 1: ")


@pytest.mark.parametrize(
    "call",
    [
        lambda: fam_jaccard(FAMS, both_empty="maybe"),
        lambda: fam_best_match_f1(FAMS, group_similarity="cosine"),
        lambda: fam_alpha_masi(FAMS, empty_support="zero"),
        lambda: span_kappa(SPANS, attribute="severity"),
        lambda: SpanMatching("fuzzy"),
        lambda: SpanMatching(min_iou=1.5),
    ],
)
def test_bad_options(call):
    with pytest.raises(InvalidOptionError):
        call()


def test_a_name_the_normalizer_refuses_names_the_span():
    documents = {"d": {"A": SPANS_A, "B": [SPANS_B[0], (5, 9, "Omision", "Subject")]}}
    with pytest.raises(InvalidAnnotationError) as caught:
        span_kappa(documents, normalize=parse_subtype)
    error = caught.value
    assert (error.document, error.annotator, error.span) == ("d", "B", 1)
    assert str(error) == (
        "document 'd', annotator 'B', span 1: subtype 'Omision' is refused by the normalizer: "
        "unknown subtype 'Omision'"
    )
    assert isinstance(error.__cause__, UnknownSubtypeError)
    # Only the compared attribute is normalized: label kappa does not look at subtypes.
    labels = span_kappa(documents, attribute="label", normalize=parse_label)
    assert labels.pair("A", "B").n == 1  # no error: one matched pair, (Subject, Subject)


@pytest.mark.parametrize(
    ("normalize", "message"),
    [
        ({"Addition": "add"}.__getitem__, "refused by the normalizer: 'Omission'"),
        (lambda name: None, "the normalizer returned None"),
        (lambda name: [name], "refused by the normalizer: unhashable"),
    ],
)
def test_normalizer_failures_are_invalid_annotations(normalize, message):
    with pytest.raises(InvalidAnnotationError, match=message):
        span_alpha(SPANS, normalize=normalize)


def test_a_normalizer_must_be_callable():
    with pytest.raises(InvalidOptionError, match="callable"):
        span_kappa(SPANS, normalize="parse_subtype")
    with pytest.raises(InvalidOptionError, match="callable"):
        span_agreement(SPANS, normalize_label=3)


def test_every_error_is_an_agreement_error_and_a_value_error():
    for error in (EmptyInputError, TooFewAnnotatorsError, UnknownDocumentError, InvalidOptionError):
        assert issubclass(error, AgreementError)
        assert issubclass(error, ValueError)


def test_the_agreement_package_loads_no_django_and_not_polytope():
    # Not polytope either: its name parsers are passed in as ``normalize``, never imported.
    code = (
        "import sys, scoring.metrics.agreement\n"
        "forbidden = ('django', 'rest_framework', 'celery')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in forbidden\n"
        "             or m.startswith('scoring.metrics.polytope')))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
