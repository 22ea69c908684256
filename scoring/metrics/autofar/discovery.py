"""Support-sentence discovery (Mao et al., 2020, Table 6): machine FAMs against human FAMs.

Per document, the predicted set is the union of every support sentence of the machine FAM
(its top-N sentences per facet) and the gold set the union of every support sentence of the
human FAM. :func:`discovery_counts` keeps the per-document counts; :func:`discovery_score`
pools them over documents (micro: hits, predicted and gold sizes summed), as
``bench/bench_suggestions.py`` does with ``evaluate(..., "micro")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..fam import FacetAwareMapping
from .errors import AutoFarInputError


@dataclass(frozen=True)
class DiscoveryCounts:
    """One document's counts: predicted and gold support sentences and their overlap.

    Attributes:
        hits: sentences both predicted and gold.
        predicted: distinct predicted sentences.
        gold: distinct gold sentences.
    """

    hits: int
    predicted: int
    gold: int


@dataclass(frozen=True)
class DiscoveryScore:
    """Micro precision, recall and F1 of one scorer's machine FAMs (fractions, not %).

    Attributes:
        scorer: the scorer's name.
        top_n: sentences per facet in the machine FAMs (``None`` when not given).
        documents: documents pooled.
        hits: summed hits.
        predicted: summed predicted-set sizes.
        gold: summed gold-set sizes.
        precision: ``hits / predicted``; ``None`` when nothing was predicted.
        recall: ``hits / gold``; ``None`` when there is no gold sentence.
        f1: harmonic mean of the two; 0 when both are 0, ``None`` when either is undefined.
        reason: why a figure is ``None``, else ``None``.
    """

    scorer: str
    top_n: int | None
    documents: int
    hits: int
    predicted: int
    gold: int
    precision: float | None
    recall: float | None
    f1: float | None
    reason: str | None = None

    def as_dict(self) -> dict:
        """This row of Table 6 as JSON-ready data.

        Returns:
            ``{"scorer", "top_n", "precision", "recall", "f1", "documents", "hits",
            "predicted", "gold", "reason"}`` (fractions; ``None`` when undefined).
        """
        return {
            "scorer": self.scorer,
            "top_n": self.top_n,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "documents": self.documents,
            "hits": self.hits,
            "predicted": self.predicted,
            "gold": self.gold,
            "reason": self.reason,
        }


def fam_support(fam: FacetAwareMapping) -> frozenset[int]:
    """Every support sentence of a FAM, over all facets and groups.

    Args:
        fam: a validated FAM.

    Returns:
        The union of all its support groups (empty when no facet has a group).
    """
    return frozenset().union(*(group for groups in fam.groups for group in groups))


def _indices(values: Iterable[int], what: str) -> frozenset[int]:
    out = set()
    for value in values:
        if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) < 0:
            raise AutoFarInputError(f"{what}: {value!r} is not a sentence index (an int >= 0)")
        out.add(int(value))
    return frozenset(out)


def discovery_counts(predicted: Iterable[int], gold: Iterable[int]) -> DiscoveryCounts:
    """Count one document's predicted, gold and shared support sentences (each once).

    Args:
        predicted: the predicted sentence indices (repeats count once).
        gold: the gold sentence indices (repeats count once).

    Returns:
        The document's :class:`DiscoveryCounts`.

    Raises:
        AutoFarInputError: an index is not a non-negative integer.
    """
    pred = _indices(predicted, "predicted support")
    true = _indices(gold, "gold support")
    return DiscoveryCounts(len(pred & true), len(pred), len(true))


def fam_discovery_counts(machine: FacetAwareMapping, human: FacetAwareMapping) -> DiscoveryCounts:
    """Count one document's support sentences found by a machine FAM against a human FAM.

    Args:
        machine: the machine FAM (e.g. from :func:`scoring.metrics.suggest.machine_fam`).
        human: the human FAM of the same document and reference.

    Returns:
        The document's :class:`DiscoveryCounts`.

    Raises:
        AutoFarInputError: the two FAMs have different sentence or facet counts (they
            cannot be of the same document and reference).
    """
    if (machine.n_sentences, machine.n_facets) != (human.n_sentences, human.n_facets):
        raise AutoFarInputError(
            f"machine FAM has {machine.n_sentences} sentences and {machine.n_facets} facets, "
            f"the human FAM {human.n_sentences} and {human.n_facets}: not the same document"
        )
    return discovery_counts(fam_support(machine), fam_support(human))


def discovery_score(
    scorer: str, counts: Sequence[DiscoveryCounts], *, top_n: int | None = None
) -> DiscoveryScore:
    """Pool per-document counts into micro precision, recall and F1.

    Args:
        scorer: the scorer's name, recorded in the result.
        counts: one :class:`DiscoveryCounts` per document.
        top_n: sentences per facet of the machine FAMs, recorded in the result.

    Returns:
        The :class:`DiscoveryScore`; figures that would divide by 0 are ``None`` with a reason.

    Raises:
        AutoFarInputError: no document.
    """
    if not counts:
        raise AutoFarInputError(f"support discovery of {scorer!r}: no document")
    hits = sum(c.hits for c in counts)
    predicted = sum(c.predicted for c in counts)
    gold = sum(c.gold for c in counts)
    precision = hits / predicted if predicted else None
    recall = hits / gold if gold else None
    reasons = []
    if precision is None:
        reasons.append("no sentence predicted: precision is undefined")
    if recall is None:
        reasons.append("no gold support sentence: recall is undefined")
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return DiscoveryScore(
        scorer,
        top_n,
        len(counts),
        hits,
        predicted,
        gold,
        precision,
        recall,
        f1,
        "; ".join(reasons) or None,
    )
