"""Adjudication core (``scoring.metrics.adjudication``): diffs, combinations and provenance,
every expected value worked by hand from the small FAMs and errors below."""

from __future__ import annotations

import pytest

from scoring.metrics.adjudication import (
    AdjudicationError,
    error_provenance_check,
    errors_combine,
    errors_diff,
    facet_combine,
    facet_decided,
    facet_provenance_check,
    fam_diff,
    fam_document_agreement,
    provenance_validate,
)
from scoring.metrics.errors import MetricsError
from scoring.metrics.spans.agreement import span_f1_exact


def facet(groups, label="supported"):
    return {"groups": groups, "label": label, "note": ""}


# Three facets. Facet 0: alice {0} or {2, 3}; bob {2, 3} (written [3, 2]) or {5}.
# Facet 1: no groups, alice says no support, bob noise. Facet 2: both {4}.
ALICE = [facet([[0], [2, 3]]), facet([], "no_support"), facet([[4]])]
BOB = [facet([[3, 2], [5]]), facet([], "noise"), facet([[4]])]
CAROL = [facet([[0]]), facet([], "noise"), facet([], "noise")]


def test_provenance_is_checked_and_made_canonical():
    assert provenance_validate({"method": "union", "annotators": ["bob", "alice", "bob"]}) == {
        "method": "union",
        "annotators": ["alice", "bob"],
    }
    assert provenance_validate({"method": "edited"}) == {"method": "edited", "annotators": []}
    with pytest.raises(AdjudicationError, match="must be an object"):
        provenance_validate("x")
    with pytest.raises(AdjudicationError, match="facet 2: provenance method must be one of"):
        provenance_validate({"method": "guess"}, where="facet 2: ")
    with pytest.raises(AdjudicationError, match="exactly one annotator"):
        provenance_validate({"method": "take", "annotators": ["a", "b"]})
    with pytest.raises(AdjudicationError, match="'union' names the annotators"):
        provenance_validate({"method": "union", "annotators": []})
    with pytest.raises(AdjudicationError, match="unknown keys"):
        provenance_validate({"method": "edited", "by": "me"})
    with pytest.raises(AdjudicationError, match="list of usernames"):
        provenance_validate({"method": "edited", "annotators": [3]})
    assert issubclass(AdjudicationError, MetricsError)


def test_the_diff_per_facet():
    diff = [d.as_dict() for d in fam_diff({"bob": BOB, "alice": ALICE})]
    assert diff[0] == {
        "facet": 0,
        "agree": False,
        "union": [
            [0],
            [2, 3],
            [5],
        ],  # alice's groups first (annotators by name), then bob's new one
        "intersection": [[2, 3]],
        "support_union": [0, 2, 3, 5],
        "support_intersection": [2, 3],  # {0, 2, 3} & {2, 3, 5}
        "labels": {"alice": "supported", "bob": "supported"},
    }
    assert diff[1]["agree"] is False and diff[1]["union"] == diff[1]["intersection"] == []
    assert diff[1]["labels"] == {"alice": "no_support", "bob": "noise"}
    assert diff[2]["agree"] is True and diff[2]["union"] == diff[2]["intersection"] == [[4]]
    assert fam_diff({}) == ()
    with pytest.raises(AdjudicationError, match="different facet counts: alice: 3, bob: 2"):
        fam_diff({"alice": ALICE, "bob": BOB[:2]})


def test_take_union_intersection_and_agreed():
    f0 = {"alice": ALICE[0], "bob": BOB[0]}
    assert facet_combine(f0, "take", ["alice"]) == {
        "groups": [[0], [2, 3]],
        "label": "supported",
        "provenance": {"method": "take", "annotators": ["alice"]},
    }
    assert facet_combine(f0, "union", ["bob", "alice"])["groups"] == [[0], [2, 3], [5]]
    assert facet_combine(f0, "intersection", ["alice", "bob"])["groups"] == [[2, 3]]
    # No groups on either side: the union keeps "no support" over "noise"; so does the
    # intersection, since neither left the facet undecided.
    f1 = {"alice": ALICE[1], "bob": BOB[1]}
    union = facet_combine(f1, "union", ["alice", "bob"])
    assert (union["groups"], union["label"]) == ([], "no_support")
    both_noise = facet_combine({"bob": BOB[1], "carol": CAROL[1]}, "union", ["bob", "carol"])
    assert both_noise["label"] == "noise"
    inter = facet_combine(f1, "intersection", ["alice", "bob"])
    assert (inter["groups"], inter["label"]) == ([], "no_support")
    # Disjoint groups: the intersection is empty and stays undecided (supported, no group).
    disjoint = facet_combine(
        {"alice": facet([[0]]), "carol": facet([[1]])}, "intersection", ["alice", "carol"]
    )
    assert (disjoint["groups"], disjoint["label"]) == ([], "supported")
    assert not facet_decided(disjoint) and facet_decided(union) and facet_decided(f0["alice"])
    agreed = facet_combine({"alice": ALICE[2], "bob": BOB[2]}, "agreed", ["alice", "bob"])
    assert agreed["groups"] == [[4]] and agreed["provenance"]["method"] == "agreed"
    with pytest.raises(AdjudicationError, match="do not agree"):
        facet_combine(f0, "agreed", ["alice", "bob"])
    with pytest.raises(AdjudicationError, match="combine with one of"):
        facet_combine(f0, "edited", ["alice"])
    with pytest.raises(AdjudicationError, match=r"no annotation by \['carol'\]"):
        facet_combine(f0, "union", ["alice", "carol"])


def test_a_gold_facet_must_be_what_its_provenance_says():
    f0 = {"alice": ALICE[0], "bob": BOB[0]}
    given = {
        "groups": [[3, 2]],
        "label": "supported",
        "provenance": {"method": "intersection", "annotators": ["bob", "alice"]},
    }
    assert facet_provenance_check(given, f0) == {
        "method": "intersection",
        "annotators": ["alice", "bob"],
    }
    # Group order does not matter; the set of groups does.
    union = {
        "groups": [[5], [2, 3], [0]],
        "provenance": {"method": "union", "annotators": ["alice", "bob"]},
    }
    assert facet_provenance_check(union, f0)["method"] == "union"
    wrong = {**union, "groups": [[0]]}
    with pytest.raises(AdjudicationError, match=r"facet 1: .*union of alice, bob.*mark it edited"):
        facet_provenance_check(wrong, f0, where="facet 1: ")
    # Without provenance: undecided facets have none, decided ones were edited by hand.
    assert facet_provenance_check(facet([]), f0) is None
    assert facet_provenance_check(facet([[7]]), f0) == {"method": "edited", "annotators": []}
    edited = {"groups": [[7]], "provenance": {"method": "edited", "annotators": ["carol"]}}
    with pytest.raises(AdjudicationError, match="no annotation by"):
        facet_provenance_check(edited, f0)


def test_document_agreement_is_the_mean_support_jaccard_over_facet_pairs():
    # alice-bob: facet 0 {0,2,3} vs {2,3,5} = 2/4; facet 1 neither supports (left out);
    # facet 2 {4} vs {4} = 1. Mean 0.75.
    assert fam_document_agreement({"alice": ALICE, "bob": BOB}) == pytest.approx(0.75)
    # With carol: alice-carol 1/3 and 0 (facet 2: {4} vs none), bob-carol 0 and 0.
    # Units 0.5, 1, 1/3, 0, 0, 0: (11/6) / 6 = 11/36.
    assert fam_document_agreement({"alice": ALICE, "bob": BOB, "carol": CAROL}) == pytest.approx(
        11 / 36
    )
    assert fam_document_agreement({"alice": ALICE}) is None
    assert fam_document_agreement({"a": [facet([])], "b": [facet([], "noise")]}) is None


def error(start, end, words, type_="extrinsic", reason=""):
    return {
        "side": "summary",
        "start": start,
        "end": end,
        "words": words,
        "type": type_,
        "label": "",
        "severity": "",
        "reason": reason,
    }


E1 = error(0, 3, "The", reason="alice's reason")
E1_BOB = error(0, 3, "The", reason="bob's reason")
E2 = error(4, 7, "cat")
E3 = error(4, 7, "cat", type_="intrinsic")  # same place as E2, another type: another error


def test_errors_diff_and_combinations():
    marks = {"bob": [E1_BOB, E3], "alice": [E1, E2]}
    diff = [d.as_dict() for d in errors_diff(marks)]
    assert diff == [
        {"error": E1, "annotators": ["alice", "bob"], "agree": True},
        {"error": E2, "annotators": ["alice"], "agree": False},
        {"error": E3, "annotators": ["bob"], "agree": False},
    ]
    annotations = {name: {"errors": errors, "no_errors": False} for name, errors in marks.items()}
    union = errors_combine(annotations, "union", ["alice", "bob"])
    assert union["no_errors"] is False
    assert [(e["type"], e["provenance"]) for e in union["errors"]] == [
        ("extrinsic", {"method": "union", "annotators": ["alice", "bob"]}),
        ("extrinsic", {"method": "union", "annotators": ["alice"]}),
        ("intrinsic", {"method": "union", "annotators": ["bob"]}),
    ]
    inter = errors_combine(annotations, "intersection", ["alice", "bob"])
    assert inter["errors"] == [
        {**E1, "provenance": {"method": "intersection", "annotators": ["alice", "bob"]}}
    ]
    taken = errors_combine(annotations, "take", ["bob"])
    assert [e["reason"] for e in taken["errors"]] == ["bob's reason", ""]
    with pytest.raises(AdjudicationError, match="did not mark the same errors"):
        errors_combine(annotations, "agreed", ["alice", "bob"])
    clean = {"alice": {"errors": [], "no_errors": True}, "bob": {"errors": [], "no_errors": True}}
    assert errors_combine(clean, "union", ["alice", "bob"]) == {"errors": [], "no_errors": True}
    unsure = {**clean, "bob": {"errors": [], "no_errors": False}}
    assert errors_combine(unsure, "intersection", ["alice", "bob"])["no_errors"] is False


def test_a_gold_error_names_only_annotators_who_marked_it():
    marks = {"alice": [E1, E2], "bob": [E1_BOB, E3]}
    both = {**E1, "provenance": {"method": "intersection", "annotators": ["bob", "alice"]}}
    assert error_provenance_check(both, marks)["annotators"] == ["alice", "bob"]
    wrong = {**E2, "provenance": {"method": "union", "annotators": ["alice", "bob"]}}
    with pytest.raises(AdjudicationError, match="error 2: .*bob did not mark this error"):
        error_provenance_check(wrong, marks, where="error 2: ")
    assert error_provenance_check(E3, marks) == {"method": "edited", "annotators": []}


def test_span_agreement_is_the_exact_span_f1_pooled_over_items_and_pairs():
    # Spans pair by their offsets alone (type and label are measured apart), as on the
    # agreement page. Item 1: E1/E1_BOB and E2/E3 pair (E3 only differs in type): 2 of 2 + 2.
    # Item 2: E2/E2, 1 of 1 + 1 (alice's error marked nowhere has no offsets: left out).
    # Item 3: one annotator (no pair). Item 4: both clean (no span). Item 5: alice's source
    # span and bob's summary span at the same offsets never pair: 0 of 1 + 1.
    # Pooled: 2 * (2 + 1 + 0) / (4 + 2 + 2) = 6/8.
    nowhere = {**E2, "side": "none", "start": None, "end": None}
    source = {**E1, "side": "source"}
    items = [
        (20, {"alice": [E1, E2], "bob": [E1_BOB, E3]}),
        (20, {"alice": [E2, nowhere], "bob": [E2]}),
        (20, {"alice": [E3]}),
        (20, {"alice": [], "bob": []}),
        (20, {"alice": [source], "bob": [E1]}),
    ]
    assert span_f1_exact(items) == pytest.approx(6 / 8)
    assert span_f1_exact(items[:1]) == pytest.approx(1.0)
    assert span_f1_exact(items[2:4]) is None
    assert span_f1_exact(items[2:3]) is None
