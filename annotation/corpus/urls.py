"""URLs of the corpus API."""

from django.urls import path

from .apis import (
    DatasetDetailApi,
    DatasetImportApi,
    DatasetListApi,
    DocumentDetailApi,
    DocumentListApi,
    DocumentSentencesUpdateApi,
    FormatListApi,
)

urlpatterns = [
    path("datasets/", DatasetListApi.as_view(), name="dataset-list"),
    path("datasets/import/", DatasetImportApi.as_view(), name="dataset-import"),
    path("formats/", FormatListApi.as_view(), name="format-list"),
    path("datasets/<slug:slug>/", DatasetDetailApi.as_view(), name="dataset-detail"),
    path("datasets/<slug:slug>/documents/", DocumentListApi.as_view(), name="document-list"),
    path("documents/<int:pk>/", DocumentDetailApi.as_view(), name="document-detail"),
    path(
        "documents/<int:pk>/sentences/",
        DocumentSentencesUpdateApi.as_view(),
        name="document-sentences-update",
    ),
]
