"""Plotted values: metric labels, numbers read from the data, their attribute and shown forms."""

from __future__ import annotations

import math

from scoring.metrics.rouge import parse_rouge_key

METRIC_LABELS = {
    "far": "FAR",
    "sar": "SAR",
    "sap": "SAP",
    "saf1": "SAF1",
    **{
        f"rouge{n}_{part}": f"ROUGE-{n} {word}"
        for n in ("1", "2", "L")
        for part, word in (("p", "precision"), ("r", "recall"), ("f", "F1"))
    },
    "faithfulness": "Faithfulness",
}


class PlotDataError(ValueError):
    """A value in the plotted data is not a number."""


def metric_label(metric: str) -> str:
    """The axis title of a metric key: ``"rouge1_r"`` -> ``"ROUGE-1 recall"``,
    ``"rougeLsum_nostem_f"`` -> ``"ROUGE-Lsum F1 (no stem)"``; unknown keys as is.

    Args:
        metric: a leaderboard metric key.

    Returns:
        The human-readable name.
    """
    if metric in METRIC_LABELS:
        return METRIC_LABELS[metric]
    rouge = parse_rouge_key(metric)
    return rouge.label if rouge else metric


def number(value: object) -> float | None:
    """A finite float from a data value; None for None, NaN and infinities.

    Args:
        value: an int, float (numpy scalars too) or None.

    Returns:
        The float, or None when there is nothing to plot.

    Raises:
        PlotDataError: ``value`` is not a number (strings and booleans are refused).
    """
    if value is None:
        return None
    if isinstance(value, bool | str | bytes):
        raise PlotDataError(f"not a number: {value!r}")
    try:
        result = float(value)
    except (TypeError, ValueError) as exc:
        raise PlotDataError(f"not a number: {value!r}") from exc
    return result if math.isfinite(result) else None


def data_value(value: float) -> str:
    """The exact form of a value in a ``data-*`` attribute: ``repr`` of the Python float.

    Args:
        value: a finite number.

    Returns:
        ``repr(float(value))``, which ``float()`` turns back into the same value.
    """
    return repr(float(value))


def optional(value: float | None) -> str | None:
    """:func:`data_value` of ``value``, or None (the attribute is left out) when it is None.

    Args:
        value: a finite number or None.

    Returns:
        The attribute text or None.
    """
    return None if value is None else data_value(value)


def fixed(value: float, decimals: int = 1) -> str:
    """``value`` with ``decimals`` decimals, never ``-0.0``: what rounds to zero has no sign.

    Args:
        value: a finite number.
        decimals: decimals after the point.

    Returns:
        The formatted number (``-0.0004`` -> ``"0.0"``, ``-0.06`` -> ``"-0.1"``).
    """
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def shown(value: float, decimals: int = 1) -> str:
    """A fraction as the papers print it: x100 with ``decimals`` decimals (0.506 -> ``"50.6"``).

    Args:
        value: a fraction.
        decimals: decimals after the point.

    Returns:
        The formatted number (see :func:`fixed`).
    """
    return fixed(value * 100, decimals)
