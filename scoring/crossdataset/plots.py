"""The cross-dataset heat maps: each system's U and normalised matrices as SVG."""

from __future__ import annotations

from scoring.leaderboards.plots import metric_label
from scoring.leaderboards.plots.heatmap import heatmap_svg

from .report import CrossDatasetReport


def _bounds(matrices) -> tuple[float, float]:
    values = [v for matrix in matrices for row in matrix for v in row if v is not None]
    return (min(values), max(values)) if values else (0.0, 1.0)


def crossdataset_heatmaps(report: CrossDatasetReport, *, metric: str) -> dict[str, dict[str, str]]:
    """Each system's two heat maps, on one colour scale per kind (so systems compare).

    Args:
        report: a :class:`CrossDatasetReport`.
        metric: the metric's key (named in the titles).

    Returns:
        system name -> ``{"u": svg, "normalised": svg}``.
    """
    label = metric_label(metric)
    u_low, u_high = _bounds(m.u for m in report.matrices.values())
    n_low, n_high = _bounds(m.normalised for m in report.matrices.values())
    labels = [str(d) for d in report.datasets]
    return {
        name: {
            "u": heatmap_svg(
                matrix.u,
                labels=labels,
                title=f"{name}: U ({label})",
                low=u_low,
                high=u_high,
                system=name,
                kind="u",
            ),
            "normalised": heatmap_svg(
                matrix.normalised,
                labels=labels,
                title=f"{name}: U / in-dataset U ({label})",
                low=n_low,
                high=n_high,
                system=name,
                kind="normalised",
            ),
        }
        for name, matrix in report.matrices.items()
    }
