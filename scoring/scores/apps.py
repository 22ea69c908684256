"""App configuration for the scores app: subscribes to ``annotation``'s events."""

from django.apps import AppConfig

from annotation.corpus.signals import dataset_imported
from annotation.fams.signals import scored_fams_changed
from annotation.spans.signals import scored_spans_changed


class ScoresConfig(AppConfig):
    name = "scoring.scores"
    label = "scores"
    verbose_name = "Scores"

    def ready(self) -> None:
        """Subscribe to the imports and the FAM and span changes that call for scoring."""
        from . import receivers
        from .services import kind  # noqa: F401 - registers the scoring job type

        dataset_imported.connect(receivers.on_dataset_imported, dispatch_uid="scores-import")
        scored_fams_changed.connect(receivers.on_scored_fams_changed, dispatch_uid="scores-fams")
        scored_spans_changed.connect(receivers.on_scored_spans_changed, dispatch_uid="scores-spans")
