"""App configuration for the uploads app: researchers register systems and upload their outputs."""

from django.apps import AppConfig

from annotation.corpus.signals import demo_dataset_loaded


class UploadsConfig(AppConfig):
    name = "scoring.uploads"
    label = "uploads"
    verbose_name = "Uploads"

    def ready(self) -> None:
        """Import the demo systems' outputs when the demo dataset is loaded."""
        from . import receivers

        demo_dataset_loaded.connect(receivers.on_demo_dataset_loaded, dispatch_uid="uploads-demo")
