"""API URLs of the crossdataset app."""

from django.urls import path

from .apis import CrossDatasetApi

urlpatterns: list = [
    path("crossdataset/", CrossDatasetApi.as_view(), name="crossdataset"),
]
