"""Receivers of the imports' and uploads' events: each queues a bias run of the dataset.

Connected in ``BiasConfig.ready()``. The events are sent inside the sender's transaction, so
the run's row commits with the data it measures; its task goes to the workers on commit.
"""

from __future__ import annotations

from .models import RunTrigger
from .services import bias_run_request


def on_dataset_imported(*, dataset, user=None, **_) -> None:
    """Queue a bias run of an imported dataset (its references, and any outputs it brought).

    Args:
        dataset: the imported dataset.
        user: who imported it.
    """
    bias_run_request(dataset=dataset, trigger=RunTrigger.IMPORT, user=user)


def on_outputs_uploaded(*, dataset, user=None, **_) -> None:
    """Queue a bias run after a system's outputs were uploaded (one waiting run for a burst).

    Args:
        dataset: the dataset the outputs summarize.
        user: the uploader.
    """
    bias_run_request(dataset=dataset, trigger=RunTrigger.UPLOAD, user=user)
