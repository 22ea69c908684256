"""ScoreColumns give the leaderboard plain dicts give, reading only the arrays a figure needs."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.leaderboard import (
    Cell,
    ColumnDocuments,
    ScoreColumn,
    build_leaderboard,
    interval_cells,
    scope_key,
)
from scoring.metrics.stats import NonFiniteValueError
from scoring.metrics.stats.errors import canonical_key

N = 40
DOCS = tuple(range(N))
# The dataset's order: neither numeric nor canonical ("0", "1", "10", ...) order.
ORDER = tuple(np.random.default_rng(11).permutation(N).tolist())
SYSTEMS = tuple(f"s{i}" for i in range(6))
METRICS = ("m0", "m1", "m2")
SORT = "m1"  # not the first metric: its columns are not the matrix's first
SETTINGS = {"level": 0.95, "resamples": 200, "seed": 5}
CATEGORY = frozenset(d for d in DOCS if d % 3 != 0)  # 26 documents, a facet category


def _full_scores() -> dict:
    """system -> metric -> doc -> Python float; systems' means are spread apart so that some
    paired tests are significant and some are not."""
    rng = np.random.default_rng(2024)
    scores: dict = {}
    for i, system in enumerate(SYSTEMS):
        for metric in METRICS:
            values = (rng.random(N) * 0.6 + 0.04 * i).tolist()
            # Filled in reverse: the mapping's own order is never the one used.
            pairs = list(zip(DOCS, values, strict=True))
            scores.setdefault(system, {})[metric] = dict(reversed(pairs))
    return scores


SCORES = _full_scores()


def _without(scores: dict, drops: dict) -> dict:
    """A copy of ``scores`` with (system, metric) -> documents removed."""
    copy = {s: {m: dict(v) for m, v in metrics.items()} for s, metrics in scores.items()}
    for (system, metric), docs in drops.items():
        for d in docs:
            del copy[system][metric][d]
    return copy


class Loads:
    """Counts how often each column's array is read."""

    def __init__(self) -> None:
        self.calls: Counter = Counter()

    def loader(self, key, array: np.ndarray):
        def load() -> np.ndarray:
            self.calls[key] += 1
            return array

        return load


def _columns(
    scores: dict,
    *,
    column_order=ORDER,
    loads: Loads | None = None,
    cells: dict | None = None,
) -> tuple[dict, dict]:
    """The same scores as ScoreColumns over the documents in ``column_order``.

    Columns over the same documents share one ColumnDocuments (all the full ones share one).

    Returns:
        (system -> metric -> ScoreColumn, the ColumnDocuments by document set).
    """
    shared: dict[frozenset, ColumnDocuments] = {}
    out: dict = {}
    for system, metrics in scores.items():
        for metric, values in metrics.items():
            keys = frozenset(values)
            documents = shared.get(keys)
            if documents is None:
                documents = shared[keys] = ColumnDocuments(d for d in column_order if d in keys)
            array = np.array([values[d] for d in documents.documents], dtype=float)
            source = loads.loader((system, metric), array) if loads is not None else array
            stored = (cells or {}).get((system, metric))
            out.setdefault(system, {})[metric] = ScoreColumn(documents, source, stored)
    return out, shared


def _build(scores, *, documents=DOCS, covered=None, order=ORDER, **kwargs):
    covered = covered if covered is not None else {s: DOCS for s in SYSTEMS}
    return build_leaderboard(
        scores,
        documents=documents,
        covered=covered,
        metrics=METRICS,
        sort=SORT,
        order=order,
        **SETTINGS,
        **kwargs,
    )


def _ordered(docs, order=ORDER) -> tuple:
    """Some documents in ``order`` (canonical key order for None)."""
    if order is None:
        return tuple(sorted(docs, key=canonical_key))
    return tuple(d for d in order if d in docs)


def _stored_cells(scores: dict, docs: tuple, columns=None, *, settings=SETTINGS) -> dict:
    """The cells of ``columns`` (default: all) over ``docs`` as the table computes them: one
    matrix of the columns the table bootstraps together over those documents, in its order
    (systems in canonical order, then metrics), so that the bootstrap's matrix product is the
    one the table does with dicts and the intervals agree to the last bit.

    Returns:
        (system, metric) -> {scope_key: StoredCell}.
    """
    if columns is None:
        columns = [(s, m) for s in sorted(scores, key=canonical_key) for m in METRICS]
    matrix = np.array([[scores[s][m][d] for s, m in columns] for d in docs], dtype=float)
    key = scope_key(docs, **settings)
    return {
        column: {key: dataclasses.astuple(cell)}
        for column, cell in zip(columns, interval_cells(matrix, **settings), strict=True)
    }


def _replace_cell(board, system, metric, cell):
    """``board`` with one cell replaced."""
    rows = tuple(
        dataclasses.replace(row, cells={**row.cells, metric: cell}) if row.system == system else row
        for row in board.rows
    )
    return dataclasses.replace(board, rows=rows)


# 1. Columns and dicts give the same leaderboard -------------------------------------------


@pytest.mark.parametrize("order", [ORDER, None], ids=["dataset-order", "canonical"])
def test_full_columns_equal_dicts(order):
    columns, shared = _columns(SCORES, column_order=ORDER if order is not None else DOCS)
    assert len(shared) == 1  # one ColumnDocuments for all 18 columns
    expected = _build(SCORES, order=order)
    assert _build(columns, order=order) == expected
    # A real table: all rows, means apart, every row but the last tested, some significant.
    assert [row.system for row in expected.rows] != sorted(SYSTEMS)  # not alphabetical
    assert expected.comparable and expected.notes == ()
    tested = [row.comparison for row in expected.rows[:-1]]
    assert all(c is not None and c.p_value is not None and c.n == N for c in tested)
    assert {c.significant for c in tested} == {True, False}
    assert expected.rows[-1].comparison is None
    assert all(cell.n == N for row in expected.rows for cell in row.cells.values())


def test_column_documents_order_does_not_matter():
    """Columns listing their documents backwards still take them in the table's order."""
    columns, _ = _columns(SCORES, column_order=tuple(reversed(ORDER)))
    assert _build(columns) == _build(SCORES)


def test_category_subset_equals_dicts():
    columns, _ = _columns(SCORES)
    expected = _build(SCORES, documents=CATEGORY)
    assert _build(columns, documents=CATEGORY) == expected
    assert expected.n_documents == len(CATEGORY) == 26
    assert {cell.n for row in expected.rows for cell in row.cells.values()} == {26}


@pytest.mark.parametrize("common_only", [False, True])
@pytest.mark.parametrize("documents", [DOCS, CATEGORY], ids=["all", "category"])
def test_system_covering_fewer_documents_equals_dicts(common_only, documents):
    """s2 has outputs (and scores) for 30 of the 40 documents only."""
    missing = ORDER[5:15]
    scores = _without(SCORES, {("s2", m): missing for m in METRICS})
    covered = {s: DOCS for s in SYSTEMS} | {"s2": [d for d in DOCS if d not in missing]}
    columns, shared = _columns(scores)
    assert len(shared) == 2  # s2's three columns share their own ColumnDocuments
    expected = _build(scores, documents=documents, covered=covered, common_only=common_only)
    got = _build(columns, documents=documents, covered=covered, common_only=common_only)
    assert got == expected
    assert not expected.comparable
    assert any("has outputs for" in note for note in expected.notes)
    if common_only:
        assert any("common only" in note for note in expected.notes)
        assert len({cell.n for row in expected.rows for cell in row.cells.values()}) == 1


@pytest.mark.parametrize("documents", [DOCS, CATEGORY], ids=["all", "category"])
def test_partial_column_gives_the_same_incomplete_scoring_note(documents):
    """s3's m2 lacks 4 documents (a failed scoring job); s1's m1 (the sort metric) lacks 2."""
    drops = {("s3", "m2"): ORDER[1:5], ("s1", SORT): ORDER[-2:]}
    scores = _without(SCORES, drops)
    columns, shared = _columns(scores)
    assert len(shared) == 3
    expected = _build(scores, documents=documents)
    assert _build(columns, documents=documents) == expected
    incomplete = [note for note in expected.notes if "scoring is incomplete" in note]
    assert len(incomplete) == 2
    assert not expected.comparable
    n_s3 = len(set(documents) - set(ORDER[1:5]))
    assert any(note.startswith(f"s3: m2 is scored on {n_s3} of its") for note in incomplete)


def test_mixed_columns_and_dicts_equal_dicts():
    """Half the systems as ScoreColumns, half as dicts, in one table."""
    columns, _ = _columns(SCORES)
    mixed = {s: (columns[s] if i % 2 else SCORES[s]) for i, s in enumerate(SYSTEMS)}
    assert _build(mixed) == _build(SCORES)


# 2. Stored cells are used, and only the sort metric's arrays are read ----------------------


@pytest.mark.parametrize("documents", [DOCS, CATEGORY], ids=["all", "category"])
def test_stored_cells_are_used_and_only_sort_columns_read(documents):
    docs = _ordered(documents)
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=_stored_cells(SCORES, docs))
    got = _build(columns, documents=documents)
    assert got == _build(SCORES, documents=documents)
    # Each system's sort column is read once (for its paired tests), no other column at all.
    assert loads.calls == Counter({(s, SORT): 1 for s in SYSTEMS})


def test_stored_cells_with_partial_column():
    """A partial column's stored cell is keyed by its own documents in scope; the table
    bootstraps the 17 full columns together and the partial one alone, and so are the stored
    cells computed."""
    scores = _without(SCORES, {("s3", "m2"): ORDER[1:5]})
    full = [(s, m) for s in SYSTEMS for m in METRICS if (s, m) != ("s3", "m2")]
    cells = _stored_cells(scores, ORDER, full)
    partial = _ordered(scores["s3"]["m2"])
    assert len(partial) == N - 4
    cells |= _stored_cells(scores, partial, [("s3", "m2")])
    loads = Loads()
    columns, _ = _columns(scores, loads=loads, cells=cells)
    expected = _build(scores)
    assert _build(columns) == expected
    assert loads.calls == Counter({(s, SORT): 1 for s in SYSTEMS})
    assert any("scoring is incomplete" in note for note in expected.notes)


STORED = _stored_cells(SCORES, ORDER)


@pytest.mark.parametrize(
    "unstored",
    [
        [(s, m) for s in SYSTEMS[2:] for m in METRICS],  # 12 columns bootstrapped together
        [("s2", "m0")],  # one column bootstrapped alone
        [("s4", SORT)],
    ],
    ids=["twelve", "one", "one-sort"],
)
def test_mixed_stored_and_computed_cells_agree_up_to_rounding(unstored):
    """Cells stored for some columns, not for others: the others are bootstrapped in a
    matrix of their own instead of the dicts' 18-column one. The bootstrap means are
    ``counts @ matrix / n``, whose BLAS summation may depend on the matrix's shape (with
    OpenBLAS a one-column matrix gives other last bits than 18 columns do), so the computed
    intervals may differ from the dicts' in the last bits; means, n, order, notes and paired
    tests never do."""
    cells = {key: value for key, value in STORED.items() if key not in unstored}
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=cells)
    got, expected = _build(columns), _build(SCORES)
    assert [row.system for row in got.rows] == [row.system for row in expected.rows]
    assert got.notes == expected.notes and got.comparable == expected.comparable
    for row, want in zip(got.rows, expected.rows, strict=True):
        assert row.comparison == want.comparison  # the same differences, exactly
        for metric in METRICS:
            a, b = row.cells[metric], want.cells[metric]
            if (row.system, metric) not in unstored:
                assert a == b  # stored, from the same 18-column matrix
            else:
                assert (a.mean, a.n) == (b.mean, b.n)
                assert (a.ci_low, a.ci_high) == pytest.approx((b.ci_low, b.ci_high), abs=1e-12)
    assert loads.calls == Counter(dict.fromkeys(unstored, 1) | {(s, SORT): 1 for s in SYSTEMS})


# 3. A stored cell under another key is ignored ---------------------------------------------


@pytest.mark.parametrize(
    "stored_docs, stored_settings",
    [
        (ORDER, SETTINGS | {"seed": SETTINGS["seed"] + 1}),
        (ORDER, SETTINGS | {"resamples": 300}),
        (ORDER, SETTINGS | {"level": 0.9}),
        (tuple(reversed(ORDER)), SETTINGS),  # the same documents in another order
        (_ordered(CATEGORY), SETTINGS),  # a category's cells, not the whole dataset's
    ],
    ids=["seed", "resamples", "level", "order", "category"],
)
def test_stored_cells_under_another_key_are_ignored(stored_docs, stored_settings):
    # Obviously wrong values: if one were used, the table would show it.
    key = scope_key(stored_docs, **stored_settings)
    cells = {(s, m): {key: (0.123, 0.1, 0.2, N)} for s in SYSTEMS for m in METRICS}
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=cells)
    assert _build(columns) == _build(SCORES)
    assert loads.calls == Counter({(s, m): 1 for s in SYSTEMS for m in METRICS})


def test_whole_dataset_cells_are_ignored_for_a_category():
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=_stored_cells(SCORES, ORDER))
    assert _build(columns, documents=CATEGORY) == _build(SCORES, documents=CATEGORY)
    assert loads.calls == Counter({(s, m): 1 for s in SYSTEMS for m in METRICS})


def test_cells_stored_in_another_order_are_ignored_without_an_order():
    """Cells stored for the dataset's order do not serve a table in canonical order."""
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=_stored_cells(SCORES, ORDER))
    assert _build(columns, order=None) == _build(SCORES, order=None)
    assert sum(loads.calls.values()) == len(SYSTEMS) * len(METRICS)
    # ... and cells stored in canonical order do.
    canonical = _ordered(DOCS, None)
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=_stored_cells(SCORES, canonical))
    assert _build(columns, order=None) == _build(SCORES, order=None)
    assert loads.calls == Counter({(s, SORT): 1 for s in SYSTEMS})


# 4. A stored cell is taken as is ------------------------------------------------------------


def test_fake_stored_cell_is_used_as_is():
    cells = dict(STORED)
    key = scope_key(ORDER, **SETTINGS)
    cells[("s4", "m2")] = {key: (0.123, 0.1, 0.15, 7)}  # not what s4's m2 values give
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=cells)
    got = _build(columns)
    expected = _build(SCORES)
    assert expected.rows[[r.system for r in expected.rows].index("s4")].cells["m2"].mean != 0.123
    assert got == _replace_cell(expected, "s4", "m2", Cell(0.123, 0.1, 0.15, 7))
    assert loads.calls[("s4", "m2")] == 0


def test_fake_stored_cell_alone_in_its_column():
    """Only one cell stored: it is used, its array never read; the others are computed."""
    cells = {("s0", "m0"): {scope_key(ORDER, **SETTINGS): (0.123, None, None, 1)}}
    loads = Loads()
    columns, _ = _columns(SCORES, loads=loads, cells=cells)
    got = _build(columns)
    row = next(r for r in got.rows if r.system == "s0")
    assert row.cells["m0"] == Cell(0.123, None, None, 1)
    assert loads.calls[("s0", "m0")] == 0
    assert sum(loads.calls.values()) == len(SYSTEMS) * len(METRICS) - 1


# Hand-worked: three documents, two systems -----------------------------------------------


def test_hand_worked_small_table():
    """Documents a, b, c taken in the order c, a, b.

    A's m: a 0.25, b 0.5, c 1.0 -> mean 1.75 / 3; B's m: 0.0, 0.5, 0.25 -> mean 0.75 / 3.
    """
    docs = ColumnDocuments(["c", "a", "b"])
    scores = {
        "A": {"m": ScoreColumn(docs, np.array([1.0, 0.25, 0.5])), "x": {"a": 2.0, "b": 4.0}},
        "B": {"m": ScoreColumn(docs, np.array([0.25, 0.0, 0.5])), "x": {"a": 1.0}},
    }
    board = build_leaderboard(
        scores,
        documents="abc",
        covered={"A": "abc", "B": "abc"},
        metrics=["m", "x"],
        sort="m",
        order="cab",
        **SETTINGS,
    )
    first, second = board.rows
    assert (first.system, second.system) == ("A", "B")
    assert first.cells["m"].mean == (1.0 + 0.25 + 0.5) / 3
    assert second.cells["m"].mean == (0.25 + 0.0 + 0.5) / 3
    assert first.cells["m"].n == second.cells["m"].n == 3
    assert first.cells["x"].mean == 3.0 and first.cells["x"].n == 2
    assert second.cells["x"] == Cell(1.0, None, None, 1)
    assert first.comparison.n == 3
    assert first.comparison.difference == pytest.approx(1.0 / 3)
    # B's x lacks b where A has it: B's scoring is incomplete.
    assert board.notes == (
        "B: x is scored on 1 of its 2 documents; its scoring is incomplete, so this column "
        "does not compare it with the others on the same documents.",
    )

    # One document in scope: a value, no interval, and no paired test possible.
    key = scope_key(("a",), **SETTINGS)
    scores["B"]["m"] = ScoreColumn(docs, np.array([0.25, 0.0, 0.5]), {key: (0.75, None, None, 1)})
    single = build_leaderboard(
        scores,
        documents={"a"},
        covered={"A": "abc", "B": "abc"},
        metrics=["m", "x"],
        sort="m",
        order="cab",
        **SETTINGS,
    )
    top, bottom = single.rows
    assert (top.system, bottom.system) == ("B", "A")  # B's stored 0.75 beats A's 0.25
    assert top.cells["m"] == Cell(0.75, None, None, 1)
    assert bottom.cells["m"] == Cell(0.25, None, None, 1)
    assert top.comparison.p_value is None and top.comparison.n == 1
    assert top.comparison.reason == "1 shared documents; a paired test needs at least 2"


# 5. ScoreColumn as a Mapping; ColumnDocuments ----------------------------------------------


def test_score_column_is_a_read_only_mapping():
    documents = ColumnDocuments([30, 10, 20])
    loads = Loads()
    column = ScoreColumn(documents, loads.loader("c", np.array([0.5, 0.25, 1.0])))
    # Membership, length, order and keys need no values.
    assert 10 in column and 40 not in column and "10" not in column
    assert len(column) == 3
    assert list(column) == [30, 10, 20]
    assert column.keys() == {10, 20, 30}
    assert column.keys() >= {10, 20} and not column.keys() >= {10, 40}
    assert {10: 0, 20: 0, 30: 0}.keys() == column.keys()
    assert column.keys() & {20, 40} == {20}
    assert loads.calls["c"] == 0
    value = column[10]
    assert value == 0.25 and type(value) is float
    assert list(column.items()) == [(30, 0.5), (10, 0.25), (20, 1.0)]
    assert all(type(v) is float for v in column.values())
    assert column == {20: 1.0, 30: 0.5, 10: 0.25}
    assert column.get(40) is None and column.get(40, -1.0) == -1.0
    with pytest.raises(KeyError):
        column[40]
    assert loads.calls["c"] == 1  # the loader is called once, however many reads
    with pytest.raises(TypeError):
        column[10] = 0.0  # type: ignore[index]


def test_score_column_at_takes_documents_in_the_order_given():
    documents = ColumnDocuments([30, 10, 20, 40])
    column = ScoreColumn(documents, np.array([3.0, 1.0, 2.0, 4.0]))
    assert column.at([20, 30]).tolist() == [2.0, 3.0]
    assert column.at((40, 10, 30)).tolist() == [4.0, 1.0, 3.0]
    assert column.at(documents.documents) is column.array()
    assert column.at([]).tolist() == []
    with pytest.raises(KeyError):
        column.at([10, 50])


def test_score_column_with_wrong_array_raises():
    documents = ColumnDocuments(["a", "b", "c"])
    for array in (np.array([1.0, 2.0]), np.zeros((3, 1)), np.zeros(4)):
        column = ScoreColumn(documents, lambda array=array: array)
        assert len(column) == 3 and "a" in column  # no values needed yet
        with pytest.raises(MetricsError, match="values for 3 documents"):
            column["a"]
        with pytest.raises(MetricsError):
            column.array()


def test_wrong_array_raises_in_the_table():
    columns, _ = _columns(SCORES)
    columns["s2"]["m0"] = ScoreColumn(columns["s2"]["m0"].documents, np.zeros(N - 1))
    with pytest.raises(MetricsError, match="score column"):
        _build(columns)


def test_column_documents():
    documents = ColumnDocuments(iter([5, 3, 9]))
    assert documents.documents == (5, 3, 9) and len(documents) == 3
    assert documents.set == frozenset({3, 5, 9})
    assert documents.position(9) == 2
    assert documents.positions([9, 5]).tolist() == [2, 0]
    assert documents.positions(documents.documents).tolist() == [0, 1, 2]
    with pytest.raises(KeyError):
        documents.position(4)
    with pytest.raises(MetricsError, match="listed twice"):
        ColumnDocuments([1, 2, 1])
    assert len(ColumnDocuments([])) == 0


def test_empty_column_is_no_score():
    """An empty ScoreColumn is like an empty dict: no cell, the metric does not apply."""
    columns, _ = _columns(SCORES)
    columns["s5"]["m2"] = ScoreColumn(ColumnDocuments([]), np.array([]))
    plain = _without(SCORES, {("s5", "m2"): DOCS})
    expected = _build(plain)
    assert _build(columns) == expected
    assert next(r for r in expected.rows if r.system == "s5").cells["m2"] is None


# 6. A non-finite value ----------------------------------------------------------------------


def test_non_finite_value_in_sort_column():
    """With dicts, the cell's bootstrap refuses the NaN (naming its row and column). With
    ScoreColumns whose cells are stored, only the paired test reads the values: the column
    path falls back to the mapping path, which names the document."""
    bad = ORDER[7]
    scores = _without(SCORES, {})
    scores["s3"][SORT][bad] = float("nan")
    with pytest.raises(NonFiniteValueError) as from_dicts:
        _build(scores)
    assert isinstance(from_dicts.value.item, tuple)  # (row, column) of the matrix

    cells = STORED  # finite cells, stored before the value went bad
    columns, _ = _columns(scores, cells=cells)
    with pytest.raises(type(from_dicts.value)) as from_columns:
        _build(columns)
    assert from_columns.value.item == bad
    assert np.isnan(from_columns.value.value)

    # Without stored cells the column path bootstraps the same matrix and fails the same way.
    columns, _ = _columns(scores)
    with pytest.raises(NonFiniteValueError) as unstored:
        _build(columns)
    assert unstored.value.item == from_dicts.value.item


def test_infinite_value_in_non_sort_column_without_stored_cell():
    scores = _without(SCORES, {})
    scores["s0"]["m2"][ORDER[0]] = float("inf")
    with pytest.raises(NonFiniteValueError) as from_dicts:
        _build(scores)
    columns, _ = _columns(scores)
    with pytest.raises(NonFiniteValueError) as from_columns:
        _build(columns)
    assert from_columns.value.item == from_dicts.value.item


# 7. scope_key -------------------------------------------------------------------------------


def test_scope_key():
    base = scope_key((3, 1, 2), level=0.95, resamples=200, seed=0)
    assert len(base) == 64 and int(base, 16) >= 0
    assert scope_key([3, 1, 2], level=0.95, resamples=200, seed=0) == base
    assert scope_key((3, 1, 2), level=0.95, resamples=200, seed=0) == base
    others = [
        scope_key((1, 2, 3), level=0.95, resamples=200, seed=0),  # order
        scope_key((3, 1, 4), level=0.95, resamples=200, seed=0),  # a document
        scope_key((3, 1), level=0.95, resamples=200, seed=0),  # one fewer
        scope_key((3, 1, 2, 4), level=0.95, resamples=200, seed=0),  # one more
        scope_key(("3", 1, 2), level=0.95, resamples=200, seed=0),  # "3" is not 3
        scope_key((3, 1, 2), level=0.9, resamples=200, seed=0),
        scope_key((3, 1, 2), level=0.95, resamples=201, seed=0),
        scope_key((3, 1, 2), level=0.95, resamples=200, seed=1),
    ]
    assert base not in others
    assert len(set(others)) == len(others)
    # Documents whose text contains the separator do not run into each other.
    assert scope_key(("a\x1fb",), level=0.95, resamples=200, seed=0) != scope_key(
        ("a", "b"), level=0.95, resamples=200, seed=0
    )
