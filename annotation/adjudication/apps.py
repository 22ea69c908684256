"""App configuration for the adjudication app: registers its hooks with campaigns (below it)."""

from django.apps import AppConfig

from annotation.campaigns.hooks import adjudicators_setter_register, reopen_guard_register


class AdjudicationConfig(AppConfig):
    name = "annotation.adjudication"
    label = "adjudication"
    verbose_name = "Adjudication"

    def ready(self) -> None:
        """Refuse to reopen a task whose document is adjudicated (campaigns asks its guards), and
        store a launched campaign's adjudicators."""
        from .selectors import adjudicated_task_reopen_guard
        from .services import campaign_adjudicators_set

        reopen_guard_register(adjudicated_task_reopen_guard)
        adjudicators_setter_register(campaign_adjudicators_set)
