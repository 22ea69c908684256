"""Receivers of ``annotation``'s events: each queues the scoring work the event calls for.

Connected in ``ScoresConfig.ready()``. The events are sent inside the sender's transaction, so
a job's row commits with the data it scores; the job itself goes to the workers on commit.
"""

from __future__ import annotations

from annotation.imports.summary import ImportSummary
from annotation.systems.models import OutputVersion

from .models import JobTrigger
from .services import (
    scoring_job_create,
    scoring_job_request_for_fams,
    scoring_job_request_for_spans,
)


def on_dataset_imported(*, dataset, summary: ImportSummary, user=None, **_) -> None:
    """Queue the scoring of the outputs an imported release brought (if any).

    Args:
        dataset: the imported dataset.
        summary: what the import wrote.
        user: who imported it.
    """
    if summary.versions:
        scoring_job_create(
            dataset=dataset,
            trigger=JobTrigger.UPLOAD,
            versions=list(OutputVersion.objects.filter(dataset=dataset)),
            user=user,
        )


def on_scored_fams_changed(*, dataset, user=None, **_) -> None:
    """Queue a rescoring after gold (or released) FAMs changed; one waiting job covers a burst.

    Args:
        dataset: the dataset whose FAMs changed.
        user: who changed them.
    """
    scoring_job_request_for_fams(dataset=dataset, user=user)


def on_scored_spans_changed(*, dataset, user=None, **_) -> None:
    """Queue a rescoring after released or gold span annotations changed (a save, an import).

    One waiting job covers a burst of saves.

    Args:
        dataset: the dataset whose span annotations changed.
        user: who changed them.
    """
    scoring_job_request_for_spans(dataset=dataset, user=user)
