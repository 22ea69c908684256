"""Correlations of a per-output human score with automatic metrics, at system and instance level.

As in Huang et al. (2020), Table 4 (Pearson r of ROUGE against PolyTope): at **system level**
one point per system, the metric's mean over the outputs the humans scored against the system's
human score (for PolyTope the pooled score); at **instance level** one point per scored output,
every system's outputs together.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from statistics import fmean

from ..stats import Correlation
from ..stats.correlation import MIN_POINTS
from ..stats.errors import canonical_key
from ..stats.order import Order, in_order, key_order
from .correlations import coefficients_dict, level_coefficients, undefined_coefficients

LEVEL_SYSTEM = "system"
LEVEL_INSTANCE = "instance"
# Per-output scores that come from human annotations, not from a metric: the XSum release's
# faithfulness (share of a summary's words outside the annotators' hallucinated spans).
FAITHFULNESS = "faithfulness"
HUMAN_METRICS = (FAITHFULNESS,)


@dataclass(frozen=True)
class HumanScoreCorrelation:
    """One metric against one human score at one level.

    Attributes:
        human: the human score's name (e.g. ``polytope``).
        metric: the metric key.
        level: ``"system"`` or ``"instance"``.
        n: points correlated (systems, or outputs).
        n_systems: systems those points come from.
        pearson: Pearson's r; spearman: Spearman's rho; kendall: Kendall's tau-b.
    """

    human: str
    metric: str
    level: str
    n: int
    n_systems: int
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation

    def as_dict(self) -> dict:
        """JSON-ready: ``{"human", "metric", "level", "n", "n_systems", <method>: {"value",
        "p_value", "reason", "n"}}`` (an undefined coefficient is None with its reason)."""
        data: dict = {
            "human": self.human,
            "metric": self.metric,
            "level": self.level,
            "n": self.n,
            "n_systems": self.n_systems,
        }
        return data | coefficients_dict(self)


def _coefficients(x: list[float], y: list[float], level: str, what: str) -> dict[str, Correlation]:
    if len(x) < MIN_POINTS:
        reason = f"needs at least {MIN_POINTS} {what} with both scores, got {len(x)}"
        return undefined_coefficients(level, len(x), reason)
    return level_coefficients(x, y, level)


def correlate_human_scores(
    metric_scores: Mapping[str, Mapping[Hashable, Mapping[Hashable, float]]],
    human_documents: Mapping[Hashable, Mapping[Hashable, float]],
    human_systems: Mapping[Hashable, float],
    *,
    name: str,
    order: Order = None,
) -> tuple[HumanScoreCorrelation, ...]:
    """Pearson, Spearman and Kendall of each metric against a per-output human score.

    Only outputs with both a metric score and a human score count. Fewer than 3 points, or a
    constant side, never raise: the coefficient is then None with the reason. A system's
    outputs are taken in ``order`` (the dataset's documents), or in canonical key order
    without one.

    Args:
        metric_scores: metric -> system -> document -> value.
        human_documents: system -> document -> the output's human score.
        human_systems: system -> the system's human score (e.g. PolyTope pooled over words);
            a system missing here has no system-level point.
        name: the human score's name, recorded in each result.
        order: the documents' order (see :func:`scoring.metrics.stats.in_order`); None:
            canonical key order.

    Returns:
        For each metric in the order given, its system-level and then its instance-level
        result.

    Raises:
        NonFiniteValueError: a value is NaN or infinite.
        UnorderedKeyError: ``order`` does not list some document both sides score.
    """
    order = key_order(order)
    results = []
    for metric, by_system in metric_scores.items():
        x_system, y_system, x_pairs, y_pairs, pair_systems = [], [], [], [], set()
        for system in sorted(human_documents, key=canonical_key):
            scores = by_system.get(system, {})
            documents = in_order(
                human_documents[system].keys() & scores.keys(), order, what=f"{name} x {metric}"
            )
            if not documents:
                continue
            x_pairs += [scores[d] for d in documents]
            y_pairs += [human_documents[system][d] for d in documents]
            pair_systems.add(system)
            if system in human_systems:
                x_system.append(fmean(scores[d] for d in documents))
                y_system.append(human_systems[system])
        results.append(
            HumanScoreCorrelation(
                name,
                metric,
                LEVEL_SYSTEM,
                len(x_system),
                len(x_system),
                **_coefficients(x_system, y_system, LEVEL_SYSTEM, "systems"),
            )  # fmt: skip
        )
        results.append(
            HumanScoreCorrelation(
                name,
                metric,
                LEVEL_INSTANCE,
                len(x_pairs),
                len(pair_systems),
                **_coefficients(x_pairs, y_pairs, LEVEL_INSTANCE, "outputs"),
            )  # fmt: skip
        )
    return tuple(results)
