"""Inter-annotator agreement on FAMs, error spans and item scores: per item, per pair, overall."""

from .categories import CATEGORIES, fam_category
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
from .fam_campaign import (
    FAM_CAMPAIGN_MEASURES,
    FamCampaignAgreement,
    fam_campaign_agreement,
)
from .fams import FamAgreement, fam_agreement, fam_alpha_masi, fam_best_match_f1, fam_jaccard
from .result import AgreementResult, Score
from .scores import (
    ScoreAgreement,
    interval_distance,
    pearson,
    score_abs_difference,
    score_agreement,
    score_alpha_interval,
    score_pearson,
)
from .sets import best_match_f1, dice, jaccard, masi_distance, nominal_distance
from .span_measures import SpanAgreement, span_agreement, span_alpha, span_f1, span_kappa
from .spans import Span, SpanMatching, match_spans, span_clusters

__all__ = [
    "CATEGORIES",
    "FAM_CAMPAIGN_MEASURES",
    "AgreementError",
    "AgreementResult",
    "EmptyInputError",
    "FacetCountMismatchError",
    "FamAgreement",
    "FamCampaignAgreement",
    "InvalidAnnotationError",
    "InvalidOptionError",
    "Score",
    "ScoreAgreement",
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
    "fam_campaign_agreement",
    "fam_category",
    "fam_best_match_f1",
    "fam_jaccard",
    "interval_distance",
    "jaccard",
    "krippendorff_alpha",
    "masi_distance",
    "match_spans",
    "nominal_distance",
    "pearson",
    "score_abs_difference",
    "score_agreement",
    "score_alpha_interval",
    "score_pearson",
    "span_agreement",
    "span_alpha",
    "span_clusters",
    "span_f1",
    "span_kappa",
]
