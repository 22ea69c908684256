"""API URLs of the autofar app: fits and AutoFAR-L runs."""

from django.urls import path

from .apis import (
    AutoFarFitCreateApi,
    AutoFarFitDetailApi,
    AutoFarFitListApi,
    AutoFarRunDetailApi,
    AutoFarRunListApi,
    AutoFarRunStartApi,
    AutoFarRunStatusApi,
)

urlpatterns = [
    path("autofar/fits/", AutoFarFitListApi.as_view(), name="autofar-fit-list"),
    path("autofar/fits/create/", AutoFarFitCreateApi.as_view(), name="autofar-fit-create"),
    path("autofar/fits/<int:fit_id>/", AutoFarFitDetailApi.as_view(), name="autofar-fit-detail"),
    path(
        "datasets/<slug:slug>/autofar-runs/", AutoFarRunListApi.as_view(), name="autofar-run-list"
    ),
    path(
        "datasets/<slug:slug>/autofar-runs/start/",
        AutoFarRunStartApi.as_view(),
        name="autofar-run-start",
    ),
    path(
        "datasets/<slug:slug>/autofar-runs/status/",
        AutoFarRunStatusApi.as_view(),
        name="autofar-run-status",
    ),
    path("autofar-runs/<int:run_id>/", AutoFarRunDetailApi.as_view(), name="autofar-run-detail"),
]
