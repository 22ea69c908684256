"""App configuration for the scores app: subscribes to ``annotation``'s events."""

from django.apps import AppConfig


class ScoresConfig(AppConfig):
    name = "scoring.scores"
    label = "scores"
    verbose_name = "Scores"

    def ready(self) -> None:
        """Subscribe to the imports, FAM and span changes and the demo that call for scoring."""
        from annotation.corpus.signals import dataset_imported, demo_dataset_loaded
        from annotation.fams.signals import scored_fams_changed
        from annotation.spans.signals import scored_spans_changed

        from . import receivers
        from .services import kind  # noqa: F401 - registers the scoring job type

        dataset_imported.connect(receivers.on_dataset_imported, dispatch_uid="scores-import")
        scored_fams_changed.connect(receivers.on_scored_fams_changed, dispatch_uid="scores-fams")
        scored_spans_changed.connect(receivers.on_scored_spans_changed, dispatch_uid="scores-spans")
        demo_dataset_loaded.connect(receivers.on_demo_dataset_loaded, dispatch_uid="scores-demo")
