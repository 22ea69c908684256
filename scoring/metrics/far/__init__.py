"""The FAR family (Mao et al., ACL 2020, Sec. 3.1): facet-aware recall and support-sentence scores.

Definitions, for one document with a validated FAM
(:class:`scoring.metrics.fam.FacetAwareMapping`) and a
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
* **FAR per sentence** (``far_per_sentence``): ``FAR / |E|`` for each document, where ``|E|``
  is the number of *distinct* extracted sentences considered (the set of the first ``k``
  entries, so a repeat makes it smaller than ``k``); the system figure is the mean of these
  per-document ratios (not mean FAR divided by mean ``|E|``). FAR here is the FAR above, so
  its denominator follows ``include_unsupported``. This is **our reading** of the paper's
  footnote 5: "Extracting all the sentences results in a perfect FAR, which is expected as FAR
  measures recall. One can also normalize FAR by the number of extracted sentences." The
  paper gives no formula and no table with such a column, so which count is "the number of
  extracted sentences" (here the distinct ones among the first ``k``) and whether to divide
  each document's FAR or the mean are ours. With ``k = 3`` and no repeats it is FAR / 3 for
  every system; it tells systems apart only with ``k=None``, where they extract different
  numbers of sentences. The footnote's first sentence holds on the FAR release: extracting
  every sentence gives FAR 1 on each of the 89 documents (``tests/metrics/
  test_far_reproduction.py``).
* **Covered facets per sentence** (``covered_per_sentence``, an alternative reading of the
  same footnote): ``covered facets / |E|`` per document, then averaged. It does not depend on
  FAR's denominator. Available per document and as
  :attr:`FarSystemScore.covered_per_sentence`; not in :meth:`FarSystemScore.means` nor in the CLI.

Undefined values are never returned as 0 or NaN: a document whose FAM has no support group
raises :class:`NoSupportError` (SAR and FAR would be 0/0), an empty extraction raises
:class:`EmptyExtractionError` (SAP would be 0/0). Aggregates are means over documents and always
carry the coverage (scored / expected documents); a system without outputs for some expected
documents raises :class:`MissingOutputsError` unless the caller passes ``allow_partial=True``.

:func:`score_document` is the per-document definition, :func:`score_system` applies it document
by document, and :class:`FarEngine` computes the same numbers in bulk with bit masks. Both
return a :class:`FarSystemScore` (named apart from PolyTope's ``PolytopeSystemScore`` and the
scores app's models): :meth:`FarSystemScore.per_document` gives one measure per
document for :mod:`scoring.metrics.stats`, and :meth:`FarSystemScore.as_dict` the JSON record the
``far`` CLI prints.
"""

from .aggregate import (
    PER_DOCUMENT_MEASURES,
    FarScoreTable,
    FarSystemScore,
    aggregate,
    score_system,
)
from .document import (
    DEFAULT_K,
    FarDocumentScore,
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
    UnknownMeasureError,
)
from .stats import FamStats, fam_statistics

__all__ = [
    "DEFAULT_K",
    "FarDocumentScore",
    "EmptyExtractionError",
    "ExtractedIndexError",
    "PER_DOCUMENT_MEASURES",
    "FamStats",
    "FarEngine",
    "FarError",
    "FarSystemScore",
    "InvalidKError",
    "MissingOutputsError",
    "NoDocumentsError",
    "NoSupportError",
    "FarScoreTable",
    "FarSystemScore",
    "UnknownMeasureError",
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
