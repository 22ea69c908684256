"""Campaign services (writes), split by sub-domain; import them from here."""

from .assignments import (
    task_fam_save,
    task_reopen,
    task_started,
    task_submit,
    tasks_assign_manual,
    tasks_assign_round_robin,
    unfinished_facets,
)
from .campaigns import (
    DEFAULT_SCORERS,
    CampaignLaunch,
    campaign_create,
    campaign_launch,
    campaign_status_set,
    campaign_update,
    polytope_campaign_create,
)
from .choice import campaign_documents_choose, field_error
from .presence import task_presence_leave, task_presence_touch
from .spans import task_spans_save
from .staffing import annotators_checked, campaign_annotators_add, task_reassign
from .suggestions import (
    SUGGESTIONS,
    suggestion_events_log,
    suggestion_job_create,
    suggestion_job_run_inline,
    suggestions_compute_documents,
)

__all__ = [
    "DEFAULT_SCORERS",
    "SUGGESTIONS",
    "CampaignLaunch",
    "annotators_checked",
    "campaign_annotators_add",
    "campaign_create",
    "campaign_documents_choose",
    "campaign_launch",
    "campaign_status_set",
    "campaign_update",
    "field_error",
    "polytope_campaign_create",
    "suggestion_events_log",
    "suggestion_job_create",
    "suggestion_job_run_inline",
    "suggestions_compute_documents",
    "task_fam_save",
    "task_presence_leave",
    "task_presence_touch",
    "task_reassign",
    "task_reopen",
    "task_spans_save",
    "task_started",
    "task_submit",
    "tasks_assign_manual",
    "tasks_assign_round_robin",
    "unfinished_facets",
]
