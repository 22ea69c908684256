"""App configuration for the agreement app: subscribes to the campaigns' submissions."""

from django.apps import AppConfig

from annotation.campaigns.signals import task_submitted


class AgreementConfig(AppConfig):
    name = "annotation.agreement"
    label = "agreement"
    verbose_name = "Agreement"

    def ready(self) -> None:
        """Queue a FAM campaign's agreement after each submission (one waiting run per campaign)."""
        from .fam_services import on_task_submitted
        from .services import span_agreement_on_task_submitted

        task_submitted.connect(on_task_submitted, dispatch_uid="agreement-fam-submitted")
        # PolyTope campaigns: the span agreement (a burst of submissions queues one run).
        task_submitted.connect(
            span_agreement_on_task_submitted, dispatch_uid="agreement-spans-submitted"
        )
