"""The FAR family (Mao et al., ACL 2020, Sec. 3.1): facet-aware recall and support-sentence scores.

Definitions, for one document with a validated FAM (:class:`scoring.metrics.fam.Fam`) and a
system's extracted sentence indices in extraction order:

* **Considered sentences** ``E``: the *set* of the first ``k`` extracted entries (default
  ``k = 3``, as in the paper; ``k=None`` takes all). A repeated index among them counts once,
  so ``|E|`` can be below ``k``; the release's notebook does the same and the published table
  depends on it.
* **Support** ``S``: the union of every support sentence of every facet.
* **SAP** (support precision) ``= |E ∩ S| / |E|``; **SAR** (support recall) ``= |E ∩ S| / |S|``;
  **SAF1** ``= 2·SAP·SAR / (SAP + SAR) = 2|E ∩ S| / (|E| + |S|)``, computed per document (the
  published SAF1 is the mean of per-document F1, not the F1 of the means). It is 0 when
  ``E ∩ S`` is empty. (The notebook adds 1e-6 to the denominator; that changes nothing at the
  published three decimals.)
* **FAR**: a facet is covered when one of its support groups is a subset of ``E``;
  ``FAR = covered facets / facets with a support group``. With ``include_unsupported=True``
  the denominator is every facet of the reference (unsupported facets are never covered).
* **Redundancy**: a document is redundant when the summary covers more than one *distinct*
  support group of the same facet. The rate is the share of redundant documents. A group the
  data lists twice counts once.
* **FAR per sentence** (paper footnote 5, "FAR normalized by the number of extracted
  sentences"): ``FAR / |E|``, per document, then averaged. The footnote's own words are not in
  this repository or the release; this is our reading. With ``k = 3`` it is about FAR / 3 for
  every system; it tells systems apart with ``k=None``, where they extract different numbers
  of sentences.

Undefined values are never returned as 0 or NaN: a document whose FAM has no support group
raises :class:`NoSupportError` (SAR and FAR would be 0/0), an empty extraction raises
:class:`EmptyExtractionError` (SAP would be 0/0). Aggregates are means over documents and always
carry the coverage (scored / expected documents); a system without outputs for some expected
documents raises :class:`MissingOutputsError` unless the caller passes ``allow_partial=True``.

:func:`score_document` is the per-document definition, :func:`score_system` applies it document
by document, and :class:`FarEngine` computes the same numbers in bulk with bit masks.
"""

from .aggregate import ScoreTable, SystemScore, aggregate, score_system
from .document import (
    DEFAULT_K,
    DocumentScore,
    all_support,
    check_k,
    considered_sentences,
    covered_groups,
    scorable_documents,
    score_document,
    validate_extracted,
)
from .engine import FarEngine
from .errors import (
    EmptyExtractionError,
    ExtractedIndexError,
    FarError,
    InvalidKError,
    MissingOutputsError,
    NoDocumentsError,
    NoSupportError,
)
from .stats import FamStats, fam_statistics

__all__ = [
    "DEFAULT_K",
    "DocumentScore",
    "EmptyExtractionError",
    "ExtractedIndexError",
    "FamStats",
    "FarEngine",
    "FarError",
    "InvalidKError",
    "MissingOutputsError",
    "NoDocumentsError",
    "NoSupportError",
    "ScoreTable",
    "SystemScore",
    "aggregate",
    "all_support",
    "check_k",
    "considered_sentences",
    "covered_groups",
    "fam_statistics",
    "scorable_documents",
    "score_document",
    "score_system",
    "validate_extracted",
]
