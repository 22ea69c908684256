"""URLs of the human judgments API: list and upload studies, replace or delete one."""

from django.urls import path

from .apis import JudgmentDetailApi, JudgmentListApi

urlpatterns: list = [
    path("datasets/<slug:slug>/judgments/", JudgmentListApi.as_view(), name="judgment-list"),
    path(
        "datasets/<slug:slug>/judgments/<slug:study>/",
        JudgmentDetailApi.as_view(),
        name="judgment-detail",
    ),
]
