"""App configuration for the adjudication app: registers its reopen guard with campaigns."""

from django.apps import AppConfig


class AdjudicationConfig(AppConfig):
    name = "annotation.adjudication"
    label = "adjudication"
    verbose_name = "Adjudication"

    def ready(self) -> None:
        """Refuse to reopen a task whose document is adjudicated (campaigns asks its guards)."""
        from annotation.campaigns.hooks import reopen_guard_register

        from .selectors import adjudicated_task_reopen_guard

        reopen_guard_register(adjudicated_task_reopen_guard)
