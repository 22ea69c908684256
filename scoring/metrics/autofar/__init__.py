"""AutoFAR (Mao et al., ACL 2020, Sec. 4.2, Tables 6-8): machine FAMs measured against human FAMs.

* :mod:`.discovery`: support-sentence discovery, micro P/R/F1 of machine FAMs (Table 6).
* :mod:`.correlation`: system-level Pearson/Spearman/Kendall of machine-FAM FAR against human
  FAR, with paired bootstrap intervals over documents (Table 7).
* :mod:`.regression`: least squares from several scorers' FAR to human FAR, validated leaving
  one system out, and its predictions for documents without human FAMs (Table 8, AutoFAR-L).

See ``README.md`` in this package for the definitions and a worked example.
"""

from .correlation import CoefficientWithInterval, FarCorrelation, far_correlation, far_matrices
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
    HeldOutSystem,
    autofar_fit,
    autofar_predict,
    autofar_report,
)

__all__ = [
    "AutoFarError",
    "AutoFarFit",
    "AutoFarInputError",
    "AutoFarModel",
    "AutoFarPredictions",
    "CoefficientWithInterval",
    "DiscoveryCounts",
    "DiscoveryScore",
    "FarCorrelation",
    "HeldOutSystem",
    "SingularFitError",
    "autofar_fit",
    "autofar_predict",
    "autofar_report",
    "discovery_counts",
    "discovery_score",
    "fam_discovery_counts",
    "fam_support",
    "far_correlation",
    "far_matrices",
]
