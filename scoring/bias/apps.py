"""App configuration for the bias app: subscribes to the imports and uploads."""

from django.apps import AppConfig

from annotation.corpus.signals import dataset_imported
from scoring.uploads.signals import outputs_uploaded


class BiasConfig(AppConfig):
    name = "scoring.bias"
    label = "bias"
    verbose_name = "Bias"

    def ready(self) -> None:
        """Queue a bias run when a dataset is imported and when outputs are uploaded."""
        from . import receivers, services  # noqa: F401 - services registers the bias job type

        dataset_imported.connect(receivers.on_dataset_imported, dispatch_uid="bias-import")
        outputs_uploaded.connect(receivers.on_outputs_uploaded, dispatch_uid="bias-upload")
