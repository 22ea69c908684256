"""URLs of the releases API."""

from django.urls import path

from .apis import ReleaseDetailApi, ReleaseDownloadApi, ReleaseListApi

urlpatterns = [
    path("datasets/<slug:slug>/releases/", ReleaseListApi.as_view(), name="release-list"),
    path(
        "datasets/<slug:slug>/releases/<int:version>/",
        ReleaseDetailApi.as_view(),
        name="release-detail",
    ),
    path(
        "datasets/<slug:slug>/releases/<int:version>/download/",
        ReleaseDownloadApi.as_view(),
        name="release-download",
    ),
]
