"""Reading the leaderboard API envelope: a system's names and one metric's mean and interval."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .values import number


@dataclass(frozen=True)
class Stat:
    """One metric of one system: the mean and its confidence interval (fractions)."""

    mean: float
    ci_low: float | None
    ci_high: float | None
    n: int | None

    @property
    def has_ci(self) -> bool:
        """Whether both ends of the confidence interval are known."""
        return self.ci_low is not None and self.ci_high is not None


def metric_stat(entry: Mapping, metric: str) -> Stat | None:
    """The ``{"mean", "ci_low", "ci_high", "n"}`` object of ``metric`` in a system's entry.

    Args:
        entry: one object of the envelope's ``systems`` list.
        metric: a metric key.

    Returns:
        The statistic, or None when the metric is null, absent or has no finite mean.

    Raises:
        PlotDataError: a value is not a number.
    """
    value = entry.get(metric)
    if not isinstance(value, Mapping):
        mean = number(value)
        return None if mean is None else Stat(mean, None, None, None)
    mean = number(value.get("mean"))
    if mean is None:
        return None
    n = number(value.get("n"))
    low, high = number(value.get("ci_low")), number(value.get("ci_high"))
    return Stat(mean, low, high, None if n is None else int(n))


def system_names(entry: Mapping) -> tuple[str, str]:
    """A system entry's slug and display name (the slug when it has no name).

    Args:
        entry: one object of the envelope's ``systems`` list.

    Returns:
        ``(system, name)`` as strings.
    """
    slug = str(entry.get("system") or "")
    return slug, str(entry.get("name") or slug)
