"""Receivers of the APES and AutoFAR apps' events: warm the boards their runs changed.

Connected in ``LeaderboardsConfig.ready()``; APES and AutoFAR sit below the leaderboards (which
read their figures) and never import them.
"""

from __future__ import annotations

from scoring.metrics.far import DEFAULT_K

from .tasks import leaderboard_warm


def on_apes_run_finished(*, dataset_id: int, **_) -> None:
    """Warm the dataset's default leaderboard tables (FAR at the default k) after an APES run.

    Args:
        dataset_id: the run's dataset.
    """
    leaderboard_warm.delay(dataset_id, [DEFAULT_K])


def on_autofar_run_finished(*, dataset_id: int, k: int, **_) -> None:
    """Warm the dataset's leaderboard tables at the run's FAR cut-off after an AutoFAR-L run.

    Args:
        dataset_id: the run's dataset.
        k: the cut-off of the run's fit.
    """
    leaderboard_warm.delay(dataset_id, [k])
