"""Receivers of the scores app's job events: the first leaderboard, then the others."""

from __future__ import annotations

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


def on_scores_written(*, dataset_id: int, ks: list[int], **_) -> None:
    """Warm the dataset's views after an analysis wrote scores (APES, AutoFAR-L).

    Args:
        dataset_id: the dataset's primary key.
        ks: the FAR cut-offs to warm.
    """
    leaderboard_warm.delay(dataset_id, ks)
