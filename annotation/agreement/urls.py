"""URLs of the span agreement API."""

from django.urls import path

from .apis import SpanAgreementRunCreateApi, SpanAgreementRunDetailApi

urlpatterns = [
    path("span-agreement/", SpanAgreementRunCreateApi.as_view(), name="span-agreement-create"),
    path(
        "span-agreement/<int:run_id>/",
        SpanAgreementRunDetailApi.as_view(),
        name="span-agreement-detail",
    ),
]
