"""API URLs of the crossdataset app."""

from django.urls import path

from .apis import CrossDatasetApi, CrossDatasetTestRunDetailApi, CrossDatasetTestRunStartApi

urlpatterns: list = [
    path("crossdataset/", CrossDatasetApi.as_view(), name="crossdataset"),
    path(
        "crossdataset/tests/",
        CrossDatasetTestRunStartApi.as_view(),
        name="crossdataset-test-run-start",
    ),
    path(
        "crossdataset/tests/<int:run_id>/",
        CrossDatasetTestRunDetailApi.as_view(),
        name="crossdataset-test-run-detail",
    ),
]
