"""API URLs of the bias app."""

from django.urls import path

from .apis import DatasetBiasApi, DatasetBiasPlotApi

urlpatterns: list = [
    path("datasets/<slug:slug>/bias/", DatasetBiasApi.as_view(), name="dataset-bias"),
    path(
        "datasets/<slug:slug>/bias/plots/<slug:name>.svg",
        DatasetBiasPlotApi.as_view(),
        name="dataset-bias-plot",
    ),
]
