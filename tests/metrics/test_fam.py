"""FAM validation (``scoring.metrics.fam``): hand-made cases for every error type."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.fam import (
    DuplicateGroupError,
    EmptyGroupError,
    FacetAwareMapping,
    FamError,
    IndexOutOfRangeError,
    InvalidCountError,
    UnknownFacetError,
    validate_fam,
)

# A document of 5 sentences and 3 facets: facet 0 has groups {0} and {2, 3}, facet 1 has {4},
# facet 2 none.
GOOD = {0: [[0], [2, 3]], 1: [[4]], 2: []}


def test_a_valid_fam_from_a_dict_or_a_list():
    fam = validate_fam(GOOD, n_sentences=5, n_facets=3)
    assert isinstance(fam, FacetAwareMapping)
    assert fam.groups == ((frozenset({0}), frozenset({2, 3})), (frozenset({4}),), ())
    assert (fam.n_facets, fam.n_sentences) == (3, 5)
    assert fam.support(0) == {0, 2, 3} and fam.support(2) == frozenset()
    as_list = validate_fam([[[0], [2, 3]], [[4]], []], n_sentences=5, n_facets=3)
    assert as_list == fam
    # A facet missing from a dict has no group; trailing facets still exist.
    assert validate_fam({1: [[4]]}, n_sentences=5, n_facets=4).groups == (
        (),
        (frozenset({4}),),
        (),
        (),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        fam.n_sentences = 6


def test_every_fam_error_is_a_metrics_error():
    for cls in (
        EmptyGroupError,
        IndexOutOfRangeError,
        DuplicateGroupError,
        UnknownFacetError,
        InvalidCountError,
    ):
        assert issubclass(cls, FamError) and issubclass(cls, MetricsError)


def test_empty_group_names_facet_and_group():
    with pytest.raises(EmptyGroupError, match=r"^facet 1, group 1: empty support group$") as info:
        validate_fam({0: [[0]], 1: [[4], []]}, n_sentences=5, n_facets=2)
    assert (info.value.facet, info.value.group) == (1, 1)


@pytest.mark.parametrize(
    ("index", "message"),
    [
        (
            5,
            r"facet 0, group 1: sentence index 5 is out of range "
            r"\(document has 5 sentences: 0..4\)",
        ),
        (-1, r"facet 0, group 1: sentence index -1 is out of range"),
        (1.0, r"facet 0, group 1: sentence index 1.0 is not an integer"),
        ("1", r"facet 0, group 1: sentence index '1' is not an integer"),
    ],
)
def test_index_out_of_range_or_not_an_integer(index, message):
    with pytest.raises(IndexOutOfRangeError, match=message):
        validate_fam({0: [[0], [2, index]]}, n_sentences=5, n_facets=1)


def test_duplicate_group_is_refused_unless_allowed():
    mapping = {0: [[2, 3], [0], [3, 2]]}  # the same set in another order
    with pytest.raises(
        DuplicateGroupError,
        match=r"facet 0, group 2: duplicate support group \[2, 3\] \(same as group 0\)",
    ):
        validate_fam(mapping, n_sentences=5, n_facets=1)
    fam = validate_fam(mapping, n_sentences=5, n_facets=1, allow_duplicate_groups=True)
    assert fam.groups == ((frozenset({2, 3}), frozenset({0}), frozenset({2, 3})),)


@pytest.mark.parametrize("facet", [3, -1, 10])
def test_unknown_facet_out_of_range(facet):
    with pytest.raises(
        UnknownFacetError, match=rf"^facet {facet}: unknown facet; the reference has 3"
    ):
        validate_fam({facet: [[0]]}, n_sentences=5, n_facets=3)


@pytest.mark.parametrize("facet", ["0", 0.0, None])
def test_unknown_facet_that_is_not_an_integer(facet):
    with pytest.raises(UnknownFacetError, match="is not an integer; the reference has 3 facets"):
        validate_fam({facet: [[0]]}, n_sentences=5, n_facets=3)


def test_a_list_with_more_facets_than_the_reference():
    with pytest.raises(UnknownFacetError, match="^facet 2: unknown facet; the reference has 2"):
        validate_fam([[[0]], [], [[1]]], n_sentences=5, n_facets=2)


def test_numpy_integers_are_accepted_and_stored_as_int():
    # The FAR release pickles numpy.int64 indices; numpy facet keys are integers too.
    mapping = {np.int64(0): [np.array([0, 2], dtype=np.int64)], np.int32(2): [[np.uint8(4)]]}
    fam = validate_fam(mapping, n_sentences=np.int64(5), n_facets=np.int16(3))
    assert fam == validate_fam({0: [[0, 2]], 2: [[4]]}, n_sentences=5, n_facets=3)
    assert type(fam.n_sentences) is int
    assert all(type(i) is int for groups in fam.groups for group in groups for i in group)
    # A numpy facet out of range is named as a plain integer, not as "unknown" by type.
    with pytest.raises(UnknownFacetError, match=r"^facet 3: unknown facet"):
        validate_fam({np.int64(3): [[0]]}, n_sentences=5, n_facets=3)
    with pytest.raises(IndexOutOfRangeError, match="sentence index 5 is out of range"):
        validate_fam({0: [[np.int64(5)]]}, n_sentences=5, n_facets=3)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_bools_are_refused_as_indices_facets_and_counts(value):
    with pytest.raises(IndexOutOfRangeError, match="is not an integer"):
        validate_fam({0: [[value]]}, n_sentences=5, n_facets=1)
    with pytest.raises(UnknownFacetError, match="is not an integer"):
        validate_fam({value: [[0]]}, n_sentences=5, n_facets=2)
    with pytest.raises(InvalidCountError, match="n_sentences must be a non-negative integer"):
        validate_fam({}, n_sentences=value, n_facets=1)


@pytest.mark.parametrize(
    ("n_sentences", "n_facets", "message"),
    [
        (-1, 2, r"n_sentences must be a non-negative integer, got -1"),
        (5, -2, r"n_facets must be a non-negative integer, got -2"),
        (np.int64(-3), 2, r"n_sentences must be a non-negative integer"),
        (5.0, 2, r"n_sentences must be a non-negative integer, got 5.0"),
        (5, "2", r"n_facets must be a non-negative integer, got '2'"),
    ],
)
def test_negative_or_non_integer_counts(n_sentences, n_facets, message):
    with pytest.raises(InvalidCountError, match=message):
        validate_fam({}, n_sentences=n_sentences, n_facets=n_facets)


def test_zero_counts_are_valid_but_hold_nothing():
    assert validate_fam({}, n_sentences=0, n_facets=0).groups == ()
    assert validate_fam([[]], n_sentences=0, n_facets=1).groups == ((),)
    with pytest.raises(IndexOutOfRangeError, match="document has 0 sentences"):
        validate_fam([[[0]]], n_sentences=0, n_facets=1)
