"""App configuration for the campaigns app: makes the demo's campaigns when corpus asks."""

from django.apps import AppConfig

from annotation.corpus.signals import demo_campaigns_requested


class CampaignsConfig(AppConfig):
    name = "annotation.campaigns"
    label = "campaigns"
    verbose_name = "Annotation campaigns"

    def ready(self) -> None:
        """Subscribe to the demo loader's request for the demo campaigns; register the
        suggestion job type with the job kernel (every process knows it)."""
        from . import receivers
        from .services import suggestions  # noqa: F401 - registers SUGGESTIONS

        demo_campaigns_requested.connect(
            receivers.on_demo_campaigns_requested, dispatch_uid="campaigns-demo"
        )
