"""The published figures of the FAR paper's Tables 6-8 (Mao et al., ACL 2020, arXiv version).

Copied from the paper's tables (``far-mao2020-arxiv.md``, Sec. 4.2), as fractions (the paper
prints percentages with one decimal, so each figure is exact to 0.0005). They are what
Loupe's figures are printed beside; nothing is fitted or tuned to them.

* Table 6: support-sentence discovery, precision / recall / F1 of one support sentence per
  facet (the scorers) or per document (Lead-3, greedy ROUGE-1 F1), keyed by Loupe's names
  (the registry's scorer names, :data:`LEAD` and :data:`GREEDY`).
* Table 7: Pearson's r, Spearman's rho and Kendall's tau between the FAR of six extractive
  systems under machine FAMs (N support groups per facet) and under the human FAMs.
* Table 8: each system's ground-truth FAR, AutoFAR (fitted on the annotated documents) and
  AutoFAR-L (predicted on the whole CNN/DailyMail test set), keyed by the systems' names as
  the paper and the FAR release write them, and the agreement of each column with FAR.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

LEAD = "lead-3"
GREEDY = "greedy-rouge1-f"


@dataclass(frozen=True)
class PublishedDiscovery:
    """One row of Table 6.

    Attributes:
        label: the paper's name of the approach.
        precision: as a fraction.
        recall: as a fraction.
        f1: as a fraction.
    """

    label: str
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"label", "precision", "recall", "f1"}``.
        """
        return {
            "label": self.label,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


@dataclass(frozen=True)
class PublishedAgreement:
    """Pearson's r, Spearman's rho and Kendall's tau as the paper prints them (fractions).

    Attributes:
        pearson: r.
        spearman: rho.
        kendall: tau.
    """

    pearson: float
    spearman: float
    kendall: float

    def values(self) -> tuple[float, float, float]:
        """The three coefficients.

        Returns:
            ``(pearson, spearman, kendall)``.
        """
        return (self.pearson, self.spearman, self.kendall)

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"pearson", "spearman", "kendall"}``.
        """
        return {"pearson": self.pearson, "spearman": self.spearman, "kendall": self.kendall}


@dataclass(frozen=True)
class PublishedSystem:
    """One row of Table 8 (fractions).

    Attributes:
        far: FAR under the human FAMs (89 low-abstraction documents, first 3 sentences).
        autofar: the linear regression's fit on the annotated documents.
        autofar_l: its prediction on the whole CNN/DailyMail test set.
    """

    far: float
    autofar: float
    autofar_l: float

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"far", "autofar", "autofar_l"}``.
        """
        return {"far": self.far, "autofar": self.autofar, "autofar_l": self.autofar_l}


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


TABLE6: Mapping[str, PublishedDiscovery] = _frozen(
    {
        LEAD: PublishedDiscovery("Lead-3", 0.610, 0.337, 0.434),
        GREEDY: PublishedDiscovery("Greedy ROUGE-1 F1", 0.582, 0.308, 0.403),
        "tfidf": PublishedDiscovery("TF-IDF", 0.837, 0.519, 0.640),
        "rouge1-f": PublishedDiscovery("ROUGE-1 F1", 0.889, 0.531, 0.665),
        "rouge2-f": PublishedDiscovery("ROUGE-2 F1", 0.866, 0.523, 0.652),
        "rougel-r": PublishedDiscovery("ROUGE-L Recall", 0.893, 0.537, 0.671),
        "rougel-p": PublishedDiscovery("ROUGE-L Precision", 0.772, 0.455, 0.572),
        "rougel-f": PublishedDiscovery("ROUGE-L F1", 0.878, 0.535, 0.665),
        "rougeavg-f": PublishedDiscovery("ROUGE-AVG F1", 0.900, 0.539, 0.674),
    }
)
TABLE6_TOP_N = 1  # "simply finding one support sentence for each facet"

TABLE7: Mapping[tuple[str, int], PublishedAgreement] = _frozen(
    {
        ("rouge1-f", 1): PublishedAgreement(0.705, 0.371, 0.333),
        ("rouge1-f", 2): PublishedAgreement(0.720, 0.714, 0.600),
        ("rouge1-f", 3): PublishedAgreement(0.884, 0.943, 0.867),
        ("rouge2-f", 1): PublishedAgreement(0.110, 0.257, 0.200),
        ("rouge2-f", 2): PublishedAgreement(0.434, 0.657, 0.467),
        ("rouge2-f", 3): PublishedAgreement(0.884, 0.657, 0.600),
        ("rougel-f", 1): PublishedAgreement(0.340, 0.543, 0.467),
        ("rougel-f", 2): PublishedAgreement(0.375, 0.429, 0.200),
        ("rougel-f", 3): PublishedAgreement(0.623, 0.429, 0.467),
        ("rougeavg-f", 1): PublishedAgreement(0.496, 0.543, 0.467),
        ("rougeavg-f", 2): PublishedAgreement(0.461, 0.657, 0.467),
        ("rougeavg-f", 3): PublishedAgreement(0.832, 0.829, 0.733),
    }
)

TABLE8: Mapping[str, PublishedSystem] = _frozen(
    {
        "BanditSum": PublishedSystem(0.447, 0.448, 0.447),
        "Lead-3": PublishedSystem(0.506, 0.513, 0.456),
        "FastRL(E)": PublishedSystem(0.508, 0.510, 0.431),
        "NeuSum": PublishedSystem(0.512, 0.499, 0.443),
        "Refresh": PublishedSystem(0.513, 0.517, 0.462),
        "UnifiedSum(E)": PublishedSystem(0.548, 0.545, 0.469),
    }
)
TABLE8_AUTOFAR = PublishedAgreement(0.976, 0.771, 0.600)
TABLE8_AUTOFAR_L = PublishedAgreement(0.429, 0.543, 0.467)
