"""Inter-annotator agreement on FAMs and PolyTope spans, per document, per pair and overall."""

from .coefficients import cohen_kappa, krippendorff_alpha
from .errors import (
    AgreementError,
    EmptyInputError,
    FacetCountMismatchError,
    InvalidAnnotationError,
    InvalidOptionError,
    SentenceCountMismatchError,
    TooFewAnnotatorsError,
    UnknownAnnotatorError,
    UnknownDocumentError,
)
from .fams import FamAgreement, fam_agreement, fam_alpha_masi, fam_best_match_f1, fam_jaccard
from .result import AgreementResult, Score
from .sets import best_match_f1, dice, jaccard, masi_distance, nominal_distance
from .span_measures import SpanAgreement, span_agreement, span_alpha, span_f1, span_kappa
from .spans import Span, SpanMatching, match_spans, span_clusters

__all__ = [
    "AgreementError",
    "AgreementResult",
    "EmptyInputError",
    "FacetCountMismatchError",
    "FamAgreement",
    "InvalidAnnotationError",
    "InvalidOptionError",
    "Score",
    "SentenceCountMismatchError",
    "Span",
    "SpanAgreement",
    "SpanMatching",
    "TooFewAnnotatorsError",
    "UnknownAnnotatorError",
    "UnknownDocumentError",
    "best_match_f1",
    "cohen_kappa",
    "dice",
    "fam_agreement",
    "fam_alpha_masi",
    "fam_best_match_f1",
    "fam_jaccard",
    "jaccard",
    "krippendorff_alpha",
    "masi_distance",
    "match_spans",
    "nominal_distance",
    "span_agreement",
    "span_alpha",
    "span_clusters",
    "span_f1",
    "span_kappa",
]
