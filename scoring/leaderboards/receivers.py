"""Receivers of the events of the apps below the leaderboards (scores, APES, AutoFAR): the
first board with a scoring job's success, then the boards their work changed, warmed.

Connected in ``LeaderboardsConfig.ready()``; those apps never import the leaderboards.
"""

from __future__ import annotations

from scoring.metrics.far import DEFAULT_K

from .services import leaderboard_first_view_store
from .tasks import leaderboard_warm


def on_scoring_job_finishing(*, job, **_) -> None:
    """Store the page's first view in the transaction that marks the job succeeded.

    Args:
        job: the scoring job.
    """
    leaderboard_first_view_store(dataset=job.dataset, ks=job.ks)


def on_scoring_job_succeeded(*, job, **_) -> None:
    """Warm the dataset's category views on the workers.

    Args:
        job: the scoring job.
    """
    leaderboard_warm.delay(job.dataset_id, job.ks)


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
