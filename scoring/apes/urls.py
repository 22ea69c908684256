"""API URLs of the apes app: APES runs and per-system APES."""

from django.urls import path

from .apis import (
    ApesRunDetailApi,
    ApesRunListApi,
    ApesRunStartApi,
    ApesRunStatusApi,
    ApesSystemListApi,
)

urlpatterns = [
    path("datasets/<slug:slug>/apes/", ApesSystemListApi.as_view(), name="apes-system-list"),
    path("datasets/<slug:slug>/apes-runs/", ApesRunListApi.as_view(), name="apes-run-list"),
    path("datasets/<slug:slug>/apes-runs/start/", ApesRunStartApi.as_view(), name="apes-run-start"),
    path(
        "datasets/<slug:slug>/apes-runs/status/", ApesRunStatusApi.as_view(), name="apes-run-status"
    ),
    path("apes-runs/<int:run_id>/", ApesRunDetailApi.as_view(), name="apes-run-detail"),
]
