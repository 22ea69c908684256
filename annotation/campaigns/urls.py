"""URLs of the campaigns and tasks API."""

from django.urls import path

from . import apis

urlpatterns = [
    path("campaigns/", apis.CampaignListApi.as_view(), name="campaign-list"),
    path("campaigns/create/", apis.CampaignCreateApi.as_view(), name="campaign-create"),
    path("campaigns/<int:pk>/", apis.CampaignDetailApi.as_view(), name="campaign-detail"),
    path("campaigns/<int:pk>/assign/", apis.CampaignAssignApi.as_view(), name="campaign-assign"),
    path(
        "campaigns/<int:pk>/annotators/",
        apis.CampaignAnnotatorsApi.as_view(),
        name="campaign-annotators",
    ),
    path("campaigns/<int:pk>/status/", apis.CampaignStatusApi.as_view(), name="campaign-status"),
    path(
        "campaigns/<int:pk>/progress/",
        apis.CampaignProgressApi.as_view(),
        name="campaign-progress",
    ),
    path(
        "campaigns/<int:pk>/progress.csv",
        apis.CampaignProgressCsvApi.as_view(),
        name="campaign-progress-csv",
    ),
    path("tasks/", apis.TaskListApi.as_view(), name="task-list"),
    path("tasks/<int:pk>/", apis.TaskDetailApi.as_view(), name="task-detail"),
    path("tasks/<int:pk>/fam/", apis.TaskFamSaveApi.as_view(), name="task-fam-save"),
    path("tasks/<int:pk>/spans/", apis.TaskSpanSaveApi.as_view(), name="task-span-save"),
    path("tasks/<int:pk>/submit/", apis.TaskSubmitApi.as_view(), name="task-submit"),
    path("tasks/<int:pk>/reopen/", apis.TaskReopenApi.as_view(), name="task-reopen"),
    path("tasks/<int:pk>/reassign/", apis.TaskReassignApi.as_view(), name="task-reassign"),
    path("tasks/<int:pk>/history/", apis.TaskHistoryApi.as_view(), name="task-history"),
    path("tasks/<int:pk>/suggestions/", apis.TaskSuggestionsApi.as_view(), name="task-suggestions"),
    path("tasks/<int:pk>/presence/", apis.TaskPresenceApi.as_view(), name="task-presence"),
    path(
        "tasks/<int:pk>/suggestion-events/",
        apis.TaskSuggestionEventsApi.as_view(),
        name="task-suggestion-events",
    ),
]
