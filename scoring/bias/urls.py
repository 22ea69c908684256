"""API URLs of the bias app."""

from django.urls import path

from .apis import DatasetBiasApi

urlpatterns: list = [
    path("datasets/<slug:slug>/bias/", DatasetBiasApi.as_view(), name="dataset-bias"),
]
