"""Time spent on a task, from the times its annotation was saved (pure functions, no Django).

The rule: a task's time runs from its annotator's first saved revision to their last, adding
up the gaps between consecutive saves, each gap counted at most ``IDLE_CAP_SECONDS`` (10
minutes): a longer gap is a break, of which only the first 10 minutes count. Time spent
reading before the first save, and after the last one, is not seen and not counted; a task
saved once took 0 s; a task never saved has no time (None).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from datetime import datetime

IDLE_CAP_SECONDS = 600


def active_seconds(times: Iterable[datetime], cap: float = IDLE_CAP_SECONDS) -> float | None:
    """Seconds spent between the first and the last save, each gap capped at ``cap``.

    Args:
        times: when the annotation was saved (any order).
        cap: the longest a gap between two saves counts, in seconds.

    Returns:
        The seconds, or None when there is no save.
    """
    ordered = sorted(times)
    if not ordered:
        return None
    return sum(
        min((later - earlier).total_seconds(), cap)
        for earlier, later in zip(ordered, ordered[1:], strict=False)
    )


def seconds_summary(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """The median and the mean of task times, leaving out tasks without one.

    Args:
        values: seconds per task (None for a task never saved).

    Returns:
        ``(median, mean)``, both None when no task has a time.
    """
    known = [v for v in values if v is not None]
    if not known:
        return None, None
    return statistics.median(known), statistics.fmean(known)
