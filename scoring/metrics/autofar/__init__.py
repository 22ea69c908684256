"""AutoFAR (Mao et al., ACL 2020, Sec. 4.2, Tables 6-8): machine FAMs measured against human FAMs.

* :mod:`.discovery`: support-sentence discovery, micro P/R/F1 of machine FAMs (Table 6).
* :mod:`.correlation`: system-level Pearson/Spearman/Kendall of machine-FAM FAR against human
  FAR, with paired bootstrap intervals over documents (Table 7).
* :mod:`.regression`: least squares from several scorers' FAR to human FAR, per document or
  per system, validated leaving one system out, and its predictions for documents without
  human FAMs (Table 8, AutoFAR-L).
* :mod:`.baselines`: Table 6's Lead-3 and greedy ROUGE-1 F1 labels.
* :mod:`.published`: the paper's figures of Tables 6-8, printed beside Loupe's.

See ``README.md`` in this package for the definitions and a worked example.
"""

from . import published
from .baselines import greedy_rouge1_support, lead_support
from .correlation import (
    CoefficientWithInterval,
    FarCorrelation,
    SystemAgreement,
    far_correlation,
    far_matrices,
    system_agreement,
)
from .discovery import (
    DiscoveryCounts,
    DiscoveryScore,
    discovery_counts,
    discovery_score,
    fam_discovery_counts,
    fam_support,
)
from .errors import AutoFarError, AutoFarInputError, SingularFitError
from .regression import (
    AutoFarFit,
    AutoFarModel,
    AutoFarPredictions,
    AutoFarSystemFit,
    HeldOutSystem,
    autofar_fit,
    autofar_predict,
    autofar_report,
    autofar_system_fit,
)

__all__ = [
    "AutoFarError",
    "AutoFarFit",
    "AutoFarInputError",
    "AutoFarModel",
    "AutoFarPredictions",
    "AutoFarSystemFit",
    "CoefficientWithInterval",
    "DiscoveryCounts",
    "DiscoveryScore",
    "FarCorrelation",
    "HeldOutSystem",
    "SingularFitError",
    "SystemAgreement",
    "autofar_fit",
    "autofar_predict",
    "autofar_report",
    "autofar_system_fit",
    "discovery_counts",
    "discovery_score",
    "fam_discovery_counts",
    "fam_support",
    "far_correlation",
    "far_matrices",
    "greedy_rouge1_support",
    "lead_support",
    "published",
    "system_agreement",
]
