"""Descriptive statistics of a set of FAMs, as the FAR paper reports them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..fam import FacetAwareMapping
from .document import all_support
from .errors import NoDocumentsError


@dataclass(frozen=True)
class FamStats:
    """Counts over a set of FAMs (one per document).

    Attributes:
        n_documents: FAMs counted.
        n_facets: facets (reference sentences) in all.
        mapped_facets: facets with at least one support group.
        n_groups: support groups as stored; a group the data repeats counts each time.
        unique_support: per document, the number of distinct support sentences (the union over
            its facets and groups), summed over documents.
        nonunique_support: per document, the sizes of all its support groups added up (a
            sentence counts once for every group it is in), summed over documents.
    """

    n_documents: int
    n_facets: int
    mapped_facets: int
    n_groups: int
    unique_support: int
    nonunique_support: int

    @property
    def mean_unique_support(self) -> float:
        """Distinct support sentences per document (the paper's "unique", 5.44)."""
        return self.unique_support / self.n_documents

    @property
    def mean_nonunique_support(self) -> float:
        """Support sentences per document counted once per group (the paper's 6.04)."""
        return self.nonunique_support / self.n_documents

    @property
    def mean_groups_per_mapped_facet(self) -> float | None:
        """Support groups per mapped facet; ``None`` (undefined) when no facet is mapped."""
        return self.n_groups / self.mapped_facets if self.mapped_facets else None


def fam_statistics(fams: Iterable[FacetAwareMapping]) -> FamStats:
    """Count facets, groups and support sentences over ``fams``.

    The FAR release's figures (310 mapped facets, 5.44 unique and 6.04 non-unique support
    sentences per sample) come out when the FAMs are counted as released: its one repeated
    group (sample 8157, facet 3: ``[{3}, {3}]``) counts twice in the non-unique figure, which
    gives 538 / 89 = 6.045; counted once it would be 537 / 89 = 6.034.

    Args:
        fams: validated FAMs, one per document; any iterable (it is read once). Documents
            without any support group count too (as documents and facets, with no support).

    Returns:
        The :class:`FamStats` totals; its means are per document.

    Raises:
        NoDocumentsError: no FAM (a mean over no document is undefined).
    """
    n_documents = n_facets = mapped = n_groups = unique = nonunique = 0
    for fam in fams:
        n_documents += 1
        n_facets += fam.n_facets
        mapped += sum(1 for groups in fam.groups if groups)
        n_groups += sum(len(groups) for groups in fam.groups)
        unique += len(all_support(fam))
        nonunique += sum(len(group) for groups in fam.groups for group in groups)
    if not n_documents:
        raise NoDocumentsError("no FAM to describe")
    return FamStats(n_documents, n_facets, mapped, n_groups, unique, nonunique)
