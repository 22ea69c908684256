"""The leaderboard table: per-system means with bootstrap CIs, coverage and paired tests."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import MetricsError
from ..stats import (
    DEFAULT_SEED,
    TEST_PERMUTATION,
    bootstrap_ci_columns,
    paired_permutation_tests,
)
from ..stats.errors import canonical_key
from ..stats.order import Order, UnorderedKeyError, in_order, key_order
from ..stats.paired import paired_differences
from .columns import ColumnDocuments, ScoreColumn, scope_key

Scores = Mapping[Hashable, Mapping[str, Mapping[Hashable, float]]]  # system -> metric -> doc


@dataclass(frozen=True)
class Cell:
    """One metric of one system: the mean over ``n`` documents and its bootstrap interval
    (None for a single document, which says nothing about its spread)."""

    mean: float
    ci_low: float | None
    ci_high: float | None
    n: int

    def as_dict(self) -> dict:
        """``{"mean", "ci_low", "ci_high", "n"}``."""
        return {"mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True)
class Comparison:
    """A paired test of a system against the one ranked just below it, on shared documents."""

    versus: Hashable
    metric: str
    test: str
    p_value: float | None
    significant: bool
    n: int
    difference: float | None
    reason: str | None = None

    def as_dict(self) -> dict:
        """The JSON form used by the API."""
        return {
            "system": self.versus,
            "metric": self.metric,
            "test": self.test,
            "p_value": self.p_value,
            "significant": self.significant,
            "n": self.n,
            "difference": self.difference,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Row:
    """One system's line: its documents in scope and a cell per metric (None: no scores)."""

    system: Hashable
    n_documents: int
    cells: Mapping[str, Cell | None]
    comparison: Comparison | None


@dataclass(frozen=True)
class Leaderboard:
    """A sorted leaderboard with what it covers and what a reader must know to compare rows."""

    metrics: tuple[str, ...]
    rows: tuple[Row, ...]
    sort: str
    n_documents: int
    common_documents: int
    comparable: bool
    notes: tuple[str, ...]
    level: float
    resamples: int
    seed: int
    alpha: float


class _Scopes:
    """What a table derives once per :class:`ColumnDocuments` rather than once per column:
    the documents in scope that the columns have values for (in order), and their
    :func:`scope_key`."""

    def __init__(self, documents: set, order, level: float, resamples: int, seed: int) -> None:
        self.documents = documents
        self.order = order
        self.settings = {"level": level, "resamples": resamples, "seed": seed}
        self._every: tuple | None = None
        self._of: dict[int, tuple] = {}
        self._keys: dict[int, str] = {}

    def every(self) -> tuple:
        """All the documents in scope, in order."""
        if self._every is None:
            self._every = in_order(self.documents, self.order, what="leaderboard")
        return self._every

    def docs(self, columns: ColumnDocuments) -> tuple:
        """The documents in scope among ``columns``', in order."""
        found = self._of.get(id(columns))
        if found is None:
            if self.documents and columns.set >= self.documents:
                docs = self.every()
            else:
                docs = in_order(
                    (d for d in columns.documents if d in self.documents),
                    self.order, what="leaderboard",
                )  # fmt: skip
            found = self._of[id(columns)] = (columns, docs)  # the object kept: ids stay unique
        return found[1]

    def key(self, docs: tuple) -> str:
        """:func:`scope_key` of some documents (computed once per tuple)."""
        key = self._keys.get(id(docs))
        if key is None:
            key = self._keys[id(docs)] = scope_key(docs, **self.settings)
        return key


def _cells(scores, systems, metrics, scopes: _Scopes):
    """Every (system, metric) cell; columns over the same documents share one bootstrap.

    A column's documents are taken in the scope's order (canonical key order without one):
    that order decides how the mean is added up and which rows the bootstrap draws. A
    :class:`ScoreColumn` that holds its interval for those documents and settings gives it
    without its values being read.
    """
    documents = scopes.documents
    groups: dict[tuple, list[tuple]] = defaultdict(list)
    cells: dict[tuple, Cell] = {}
    for system in systems:
        for metric in metrics:
            values = scores.get(system, {}).get(metric, {})
            if isinstance(values, ScoreColumn):
                docs = scopes.docs(values.documents)
                stored = values.cells.get(scopes.key(docs)) if docs else None
                if stored is not None:
                    cells[(system, metric)] = Cell(*stored)
                    continue
            elif documents and values.keys() >= documents:
                docs = scopes.every()
            else:
                docs = in_order(
                    (d for d in values if d in documents), scopes.order, what="leaderboard"
                )
            if docs:
                groups[docs].append((system, metric, values))
    for docs, columns in groups.items():
        matrix = np.empty((len(docs), len(columns)), dtype=float)
        for j, (_, _, values) in enumerate(columns):
            if isinstance(values, ScoreColumn):
                matrix[:, j] = values.at(docs)
            else:
                matrix[:, j] = np.fromiter(map(values.__getitem__, docs), float, count=len(docs))
        for (system, metric, _), cell in zip(
            columns, interval_cells(matrix, **scopes.settings), strict=True
        ):
            cells[(system, metric)] = cell
    return cells


def interval_cells(matrix: np.ndarray, *, level: float, resamples: int, seed: int) -> list[Cell]:
    """The cell of each column of a documents x columns matrix: its mean and bootstrap interval.

    This is how the table computes its cells, and how intervals to store with a
    :class:`ScoreColumn` are computed beforehand.

    Args:
        matrix: ``(n, m)`` finite values, n >= 1 documents in order.
        level: confidence level.
        resamples: bootstrap resamples.
        seed: bootstrap seed.

    Returns:
        One :class:`Cell` per column; with one document, the value and no interval.

    Raises:
        NonFiniteValueError: a value is NaN or infinite.
    """
    if matrix.shape[0] == 1:
        return [Cell(float(value), None, None, 1) for value in matrix[0]]
    intervals = bootstrap_ci_columns(matrix, level=level, resamples=resamples, seed=seed)
    return [Cell(ci.mean, ci.low, ci.high, ci.n) for ci in intervals]


def _column_differences(upper, lower, scopes: _Scopes):
    """Two :class:`ScoreColumn`\\ s' paired differences on the documents in scope both have, in
    order, as :func:`paired_differences` gives them; None when a value is not finite (the
    mapping path then names the document)."""
    if upper.documents is lower.documents:
        docs = scopes.docs(upper.documents)
    else:
        shared = upper.documents.set & lower.documents.set & scopes.documents
        docs = in_order(shared, scopes.order, what="paired test")
    if len(docs) < 2:
        return docs, None
    diffs = upper.at(docs) - lower.at(docs)
    return docs, (diffs if np.isfinite(diffs).all() else None)


def _compare_all(pairs, metric, scores, scopes: _Scopes, alpha, resamples, seed) -> dict:
    """Each ``(upper, lower)`` pair's paired permutation test on the documents both scored.

    Pairs over the same documents are tested together (:func:`paired_permutation_tests`: the
    sign patterns drawn once), with exactly the results of one test per pair.

    Returns:
        upper -> its :class:`Comparison` with ``lower``.
    """
    documents, order = scopes.documents, scopes.order
    comparisons: dict = {}
    groups: dict[tuple, list] = defaultdict(list)
    for upper, lower in pairs:
        a = scores.get(upper, {}).get(metric, {})
        b = scores.get(lower, {}).get(metric, {})
        diffs = None
        if isinstance(a, ScoreColumn) and isinstance(b, ScoreColumn):
            docs, diffs = _column_differences(a, b, scopes)
            shared = docs
        if diffs is None:
            a = {d: v for d, v in a.items() if d in documents}
            b = {d: v for d, v in b.items() if d in documents}
            shared = a.keys() & b.keys()
        if len(shared) < 2:
            comparisons[upper] = Comparison(
                lower, metric, TEST_PERMUTATION, None, False, len(shared), None,
                reason=f"{len(shared)} shared documents; a paired test needs at least 2",
            )  # fmt: skip
            continue
        if diffs is None:
            docs, diffs = paired_differences(
                {d: a[d] for d in shared}, {d: b[d] for d in shared}, order=order
            )
        groups[docs].append((upper, lower, diffs))
    for members in groups.values():
        results = paired_permutation_tests(
            np.stack([diffs for _, _, diffs in members]), resamples=resamples, seed=seed
        )
        for (upper, lower, _), result in zip(members, results, strict=True):
            comparisons[upper] = Comparison(
                lower, metric, result.test, result.p_value, result.p_value < alpha, result.n,
                result.statistic,
            )  # fmt: skip
    return comparisons


def _shared_intersections(sets: Mapping, documents: set) -> dict:
    """Each value's documents within ``documents``, as new sets; systems that cover the same
    documents (the same object: usually every system covers them all) share one."""
    done: dict[int, tuple] = {}
    result = {}
    for key, found in sets.items():
        if id(found) not in done:
            done[id(found)] = (found, set(found) & documents)
        result[key] = done[id(found)][1]
    return result


def _coverage_notes(systems, covered, documents, names) -> list[str]:
    notes = []
    for system in systems:
        count = len(covered.get(system, ()))
        if count < len(documents):
            notes.append(
                f"{names.get(system, system)} has outputs for {count} of {len(documents)} "
                "documents."
            )
    return notes


def _scored(values, scope: set, memo: dict) -> set | frozenset:
    """The documents of ``scope`` that a column has a value for (once per shared
    :class:`ColumnDocuments` and scope)."""
    if not isinstance(values, ScoreColumn):
        return scope.intersection(values)
    key = (id(values.documents), id(scope))
    if key not in memo:
        memo[key] = (values.documents, scope, scope & values.documents.set)
    return memo[key][2]


def _covers(values, scope: set, memo: dict) -> bool:
    """Whether a column has a value for every document of ``scope``."""
    if isinstance(values, ScoreColumn):
        key = ("covers", id(values.documents), id(scope))
        if key not in memo:
            memo[key] = (values.documents, scope, scope <= values.documents.set)
        return memo[key][2]
    return values.keys() >= scope


def _scoring_notes(scores, systems, metrics, in_scope, used, names) -> list[str]:
    """Rows scored on fewer of their documents than the others are (a failed or running job)."""
    notes = []
    scope = _shared_intersections(in_scope, used)
    memo: dict = {}
    for metric in metrics:
        columns = {s: scores.get(s, {}).get(metric, {}) for s in systems}
        if all(not columns[s] or _covers(columns[s], scope[s], memo) for s in systems):
            # Every system that has the metric has it on all its documents: none is missing
            # one (the usual case; it spares a set per system and metric).
            continue
        scored = {s: _scored(columns[s], scope[s], memo) for s in systems}
        # Documents where the metric applies: those some system has a score for.
        applicable = set().union(*scored.values()) if scored else set()
        for system in systems:
            if not scored[system]:
                continue  # the metric does not apply to this system at all
            expected = scope[system] & applicable
            missing = expected - scored[system]
            if missing:
                notes.append(
                    f"{names.get(system, system)}: {metric} is scored on {len(scored[system])} "
                    f"of its {len(expected)} documents; its scoring is incomplete, so this "
                    "column does not compare it with the others on the same documents."
                )
    return notes


def build_leaderboard(
    scores: Scores,
    *,
    documents: Collection[Hashable],
    covered: Mapping[Hashable, Collection[Hashable]],
    metrics: Sequence[str],
    sort: str,
    common_only: bool = False,
    alpha: float = 0.05,
    level: float = 0.95,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    names: Mapping[Hashable, str] | None = None,
    order: Order = None,
) -> Leaderboard:
    """Build a leaderboard from per-document scores.

    Each cell is the mean over the documents (in ``documents``) that have a score, with a
    percentile-bootstrap interval. A system missing a score on a document where the metric
    applies (other systems have one there) makes the leaderboard not ``comparable``, with a
    note naming it. Rows are sorted by ``sort``, best first; each row is tested
    against the row below with a two-sided paired permutation test on the documents both have
    a score for. When systems cover different documents the leaderboard says so in ``notes``;
    with ``common_only`` every cell is restricted to the documents all systems have outputs for.

    Means, intervals and tests take the documents in ``order`` when one is given (a dataset's
    documents by position, then external id), so two copies of a dataset whose documents have
    other keys (database ids) give the same leaderboard, exactly. Without one they are taken
    in canonical key order (type name, then text), which does not depend on the order of the
    mappings either.

    Args:
        scores: system -> metric -> document -> value (a dict, or a :class:`ScoreColumn`
            whose stored intervals are used where they were computed for the same documents
            and settings, and whose values are read only where needed).
        documents: the documents in scope (e.g. one facet category).
        covered: system -> the documents it has an output for (every listed system is a row).
        metrics: the metric columns, in order.
        sort: the metric to sort and test by (must be in ``metrics``).
        common_only: restrict to the documents every system covers.
        alpha: significance level of the paired tests.
        level: confidence level of the intervals.
        resamples: bootstrap resamples and permutation-test samples.
        seed: seed of both.
        names: display names for the notes (system keys by default).
        order: every document of ``documents`` in the order to sum, resample and pair them
            (a :class:`~scoring.metrics.stats.KeyOrder`, a sequence, or a mapping whose keys
            are in order); None: canonical key order.

    Returns:
        The :class:`Leaderboard`.

    Raises:
        MetricsError: ``sort`` is not one of ``metrics``, or ``alpha`` is outside (0, 1).
        UnorderedKeyError: ``order`` is given and leaves out some of ``documents``.
    """
    if sort not in metrics:
        raise MetricsError(f"cannot sort by {sort!r}; metrics: {list(metrics)}")
    if not 0.0 < alpha < 1.0:
        raise MetricsError(f"alpha must be in (0, 1), got {alpha!r}")
    names = names or {}
    documents = set(documents)
    order = key_order(order)
    if order is not None and (unordered := [d for d in documents if d not in order]):
        raise UnorderedKeyError("leaderboard documents", missing=unordered)
    systems = sorted(covered, key=canonical_key)
    in_scope = _shared_intersections({s: covered[s] for s in systems}, documents)
    common = set.intersection(*in_scope.values()) if systems else set()
    comparable = all(in_scope[s] == in_scope[systems[0]] for s in systems)
    notes = _coverage_notes(systems, in_scope, documents, names)
    used = common if common_only else documents
    if not comparable:
        notes.append(
            f"Only the {len(common)} documents every system covers are used (common only)."
            if common_only
            else f"Systems cover different documents, so their means are not over the same "
            f"{len(documents)} documents; {len(common)} documents are common to all. "
            "Use 'common documents only' to compare on those; the paired tests always use "
            "the documents both systems share."
        )
    scopes = _Scopes(used, order, level, resamples, seed)
    cells = _cells(scores, systems, metrics, scopes)
    incomplete = _scoring_notes(scores, systems, metrics, in_scope, used, names)
    notes += incomplete
    comparable = comparable and not incomplete

    def rank(system):
        cell = cells.get((system, sort))
        return (cell is None, -(cell.mean if cell else 0.0), canonical_key(system))

    ranked = sorted(systems, key=rank)
    tested = _compare_all(
        [
            (system, below)
            for system, below in zip(ranked, ranked[1:], strict=False)
            if (system, sort) in cells and (below, sort) in cells
        ],
        sort, scores, scopes, alpha, resamples, seed,
    )  # fmt: skip
    rows = []
    for position, system in enumerate(ranked):
        below = ranked[position + 1] if position + 1 < len(ranked) else None
        comparison = tested.get(system)
        if comparison is None and below is not None and (system, sort) in cells:
            comparison = Comparison(
                below, sort, TEST_PERMUTATION, None, False, 0, None,
                reason=f"{names.get(below, below)} has no {sort} score to compare with",
            )  # fmt: skip
        rows.append(
            Row(
                system=system,
                n_documents=len(in_scope[system] & used),
                cells={m: cells.get((system, m)) for m in metrics},
                comparison=comparison,
            )
        )
    return Leaderboard(
        metrics=tuple(metrics),
        rows=tuple(rows),
        sort=sort,
        n_documents=len(documents),
        common_documents=len(common),
        comparable=comparable,
        notes=tuple(notes),
        level=level,
        resamples=resamples,
        seed=seed,
        alpha=alpha,
    )
