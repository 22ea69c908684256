"""URLs of the scores API: scoring jobs."""

from django.urls import path

from .apis import ScoringJobDetailApi, ScoringJobListApi, ScoringJobStartApi

urlpatterns = [
    path(
        "datasets/<slug:slug>/scoring-jobs/", ScoringJobListApi.as_view(), name="scoring-job-list"
    ),
    path(
        "datasets/<slug:slug>/scoring-jobs/start/",
        ScoringJobStartApi.as_view(),
        name="scoring-job-start",
    ),
    path("scoring-jobs/<int:job_id>/", ScoringJobDetailApi.as_view(), name="scoring-job-detail"),
]
