"""URLs of the systems API."""

from django.urls import path

from .apis import (
    SystemCreateApi,
    SystemDetailApi,
    SystemListApi,
    SystemOutputListApi,
    SystemOutputUploadApi,
)

urlpatterns = [
    path("systems/", SystemListApi.as_view(), name="system-list"),
    path("systems/create/", SystemCreateApi.as_view(), name="system-create"),
    path("systems/<slug:slug>/", SystemDetailApi.as_view(), name="system-detail"),
    path("systems/<slug:slug>/outputs/", SystemOutputListApi.as_view(), name="system-output-list"),
    path(
        "datasets/<slug:slug>/outputs/",
        SystemOutputUploadApi.as_view(),
        name="system-output-upload",
    ),
]
