"""Machine FAM sets: FAMs made by a registered scorer with top-N support, stored read-only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from django.db import transaction

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, AnnotationSetKind, FacetLabel, Fam
from scoring.metrics.fam import FacetAwareMapping
from scoring.metrics.rouge import allpairs
from scoring.metrics.suggest import get_scorer, machine_fam_from_scores
from scoring.metrics.suggest.rouge import RougeScorer


def machine_set_slug(*, scorer: str, top_n: int) -> str:
    """The slug of a machine FAM set, e.g. ``machine-rouge1-f-n1``.

    Args:
        scorer: a registered scorer name.
        top_n: N, the support sentences per facet.

    Returns:
        The slug.
    """
    return f"machine-{scorer}-n{top_n}"[:64]


def feature_parts(feature: str) -> tuple[str, int]:
    """Split a fit's feature ``"scorer@N"`` into its scorer and N.

    Args:
        feature: e.g. ``"rouge1-f@2"``.

    Returns:
        ``("rouge1-f", 2)``.
    """
    scorer, _, n = feature.rpartition("@")
    return scorer, int(n)


@dataclass(frozen=True)
class MachineFam:
    """One document's machine FAM under one scorer and N.

    Attributes:
        document: the document (its first reference is the FAM's facets).
        reference_id: the reference's primary key.
        fam: the validated FAM.
    """

    document: Document
    reference_id: int
    fam: FacetAwareMapping


def machine_fams_compute(
    *, documents: Iterable[Document], pairs: Sequence[tuple[str, int]]
) -> dict[tuple[str, int], list[MachineFam]]:
    """Build each document's machine FAMs: one score matrix per scorer, then top-N per N.

    A document without a reference has no facets and gets no machine FAM. The documents'
    ``references`` should be prefetched.

    Args:
        documents: the documents.
        pairs: the (scorer, N) to build.

    Returns:
        (scorer, N) -> the documents' machine FAMs, in the documents' order.

    Raises:
        UnknownScorerError: a scorer is not registered.
        SuggestError: a bad N.
    """
    by_scorer: dict[str, list[int]] = {}
    for scorer, n in pairs:
        by_scorer.setdefault(scorer, []).append(n)
    engines = {scorer: get_scorer(scorer) for scorer in by_scorer}
    rouge = any(isinstance(engine, RougeScorer) for engine in engines.values())
    result: dict[tuple[str, int], list[MachineFam]] = {pair: [] for pair in pairs}
    for document in documents:
        references = sorted(document.references.all(), key=lambda r: r.position)
        if not references or not references[0].sentences or not document.sentences:
            continue
        reference = references[0]
        # The ROUGE scorers share one all-pairs computation per document.
        pairs_of = None
        if rouge:
            pairs_of = allpairs(reference.sentences, document.sentences)
        for scorer, ns in by_scorer.items():
            engine = engines[scorer]
            if isinstance(engine, RougeScorer):
                matrix = np.asarray(engine.from_pairs(pairs_of), dtype=np.float64)
            else:
                matrix = engine.score(reference.sentences, document.sentences)
            widest = machine_fam_from_scores(matrix, top_n=max(ns))
            for n in ns:
                fam = widest if n == max(ns) else top_n_prefix(widest, n)
                result[(scorer, n)].append(MachineFam(document, reference.pk, fam))
    return result


def top_n_prefix(fam: FacetAwareMapping, n: int) -> FacetAwareMapping:
    """The machine FAM of a smaller N, from the validated one of a larger N.

    ``machine_fam_from_scores`` lists each facet's groups in rank order (a stable sort, so
    top-n is a prefix of top-N) and drops the sentences without evidence, which come last in
    that order; so top-n's groups are the first ``n`` of top-N's (tested against
    ``machine_fam_from_scores(top_n=n)``), and one ranking serves every N.

    Args:
        fam: a machine FAM from ``machine_fam_from_scores`` with ``top_n >= n``.
        n: the smaller N.

    Returns:
        The FAM with each facet's first ``n`` groups.
    """
    return replace(fam, groups=tuple(groups[:n] for groups in fam.groups))


def _facets(fam: FacetAwareMapping) -> list[dict]:
    return [
        {
            "groups": [sorted(group) for group in groups],
            "label": FacetLabel.SUPPORTED if groups else FacetLabel.NO_SUPPORT,
            "note": "",
        }
        for groups in fam.groups
    ]


def machine_set_get_or_create(*, dataset: Dataset, scorer: str, top_n: int) -> AnnotationSet:
    """The dataset's read-only machine FAM set for a scorer and N (created when missing).

    Args:
        dataset: the dataset.
        scorer: a registered scorer name.
        top_n: N.

    Returns:
        The :class:`AnnotationSet` (``kind=machine``, ``read_only=True``).
    """
    slug = machine_set_slug(scorer=scorer, top_n=top_n)
    found = AnnotationSet.objects.filter(dataset=dataset, slug=slug).first()
    if found is not None:
        return found
    annotation_set = AnnotationSet(
        dataset=dataset,
        slug=slug,
        name=f"Machine FAMs: {scorer}, top-{top_n}",
        kind=AnnotationSetKind.MACHINE,
        read_only=True,
    )
    annotation_set.full_clean()
    annotation_set.save()
    return annotation_set


def machine_fams_store(
    *,
    fams: Mapping[AnnotationSet, Sequence[MachineFam]],
    document_ids: Sequence[int],
) -> int:
    """Replace the sets' FAMs of ``document_ids`` with ``fams`` (call inside a transaction).

    The FAMs come from :func:`machine_fam_from_scores`, which validated them, so they are
    written in bulk without a per-row ``full_clean`` (each would re-read its document).

    Args:
        fams: machine set -> its new FAMs (of documents among ``document_ids``).
        document_ids: the documents whose FAMs are replaced (those without a new FAM lose it).

    Returns:
        How many FAMs were written.
    """
    old = Fam.objects.filter(annotation_set__in=list(fams), document_id__in=list(document_ids))
    if old.exists():  # a rebuild, or a chunk sent again
        old.delete()
    rows = [
        Fam(
            annotation_set=annotation_set,
            document_id=item.document.pk,
            reference_id=item.reference_id,
            facets=_facets(item.fam),
        )
        for annotation_set, items in fams.items()
        for item in items
    ]
    Fam.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


@dataclass(frozen=True)
class MachineSetBuilt:
    """What :func:`machine_fam_set_build` wrote.

    Attributes:
        annotation_set: the machine set.
        fams: FAMs written.
        without_support: documents whose machine FAM has no support group at all.
    """

    annotation_set: AnnotationSet
    fams: int
    without_support: int


@transaction.atomic
def machine_fam_set_build(
    *, dataset: Dataset, scorer: str, top_n: int, documents: Sequence[Document] | None = None
) -> MachineSetBuilt:
    """Build (or rebuild) a dataset's machine FAM set for a scorer and N, in one transaction.

    Rebuilding replaces the set's FAMs of the documents built (all the dataset's documents by
    default), so it is idempotent. Machine sets are never scoring FAMs
    (``scoring.scores.selectors.FAM_SOURCES`` holds gold and released only) and belong to no
    campaign, so they are no annotator's work.

    Args:
        dataset: the dataset.
        scorer: a registered scorer name (``scoring.metrics.suggest.scorer_names``).
        top_n: N, support sentences per facet (each its own group).
        documents: only these documents of the dataset (all when None).

    Returns:
        The :class:`MachineSetBuilt`.

    Raises:
        UnknownScorerError: the scorer is not registered (HTTP 400).
        SuggestError: a bad N.
    """
    if documents is None:
        documents = list(
            Document.objects.filter(dataset=dataset)
            .prefetch_related("references")
            .order_by("position", "external_id")
        )
    fams = machine_fams_compute(documents=documents, pairs=[(scorer, top_n)])[(scorer, top_n)]
    annotation_set = machine_set_get_or_create(dataset=dataset, scorer=scorer, top_n=top_n)
    written = machine_fams_store(
        fams={annotation_set: fams}, document_ids=[d.pk for d in documents]
    )
    empty = sum(1 for item in fams if not any(item.fam.groups))
    return MachineSetBuilt(annotation_set, written, empty)
