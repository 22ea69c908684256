"""A dataset's ROUGE settings: change them, and rescore its outputs with them."""

from __future__ import annotations

from django.db import transaction

from annotation.campaigns.services.choice import field_error
from annotation.corpus.models import Dataset
from scoring.metrics.rouge import RougeConfig, RougeConfigError

from ..models import JobStatus, JobTrigger, RougeSettings, ScoringJob
from ..selectors import rouge_config_get, scoring_job_pending_list
from .jobs import scoring_job_create


def rouge_config_parse(data: object) -> RougeConfig:
    """A ROUGE configuration from its JSON form, refused as an API error when bad.

    Args:
        data: ``{"rouge_types": [...], "use_stemmer": bool, "split_summaries": bool}``; an
            absent option takes Loupe's default.

    Returns:
        The configuration.

    Raises:
        ApplicationError: rouge-score would refuse it (HTTP 400; ``extra["field"]`` names the
            option).
    """
    try:
        return RougeConfig.from_dict(data)
    except RougeConfigError as error:
        raise field_error(error.field or "rouge", str(error)) from None


@transaction.atomic
def rouge_settings_update(
    *, dataset: Dataset, config: RougeConfig, user=None, queue: bool = True
) -> ScoringJob | None:
    """Set the ROUGE a dataset's scoring computes, and rescore its outputs if it changed.

    The settings are written with the next revision and a scoring job (trigger ``rouge``) is
    queued on commit, unless one is already queued: its chunks read the settings when they
    run. Until the job is done the leaderboard says the ROUGE columns are being rescored; no
    value is ever stale, since a key names how it was computed. The same settings again change
    nothing and queue nothing.

    Args:
        dataset: the dataset.
        config: the new configuration (:func:`rouge_config_parse` checks a request's).
        user: who changed it.
        queue: send the job to the workers (False: the caller runs it, e.g. ``--sync``).

    Returns:
        The job that rescores (a queued one that will), or None when nothing changed.
    """
    Dataset.objects.select_for_update().filter(pk=dataset.pk).exists()  # one change at a time
    current, revision = rouge_config_get(dataset=dataset)
    if config == current:
        return None
    row = RougeSettings.objects.filter(dataset=dataset).first() or RougeSettings(dataset=dataset)
    row.rouge_types = list(config.rouge_types)
    row.use_stemmer = config.use_stemmer
    row.split_summaries = config.split_summaries
    row.revision = revision + 1
    row.updated_by = user
    row.full_clean()
    row.save()
    waiting = (
        scoring_job_pending_list(dataset=dataset)
        .filter(trigger=JobTrigger.ROUGE, status=JobStatus.QUEUED)
        .first()
    )
    if waiting is not None:
        return waiting
    return scoring_job_create(dataset=dataset, trigger=JobTrigger.ROUGE, user=user, queue=queue)
