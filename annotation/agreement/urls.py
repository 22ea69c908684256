"""URLs of the agreement API: span agreement runs and a campaign's agreement."""

from django.urls import path

from .apis import SpanAgreementRunDetailApi, SpanAgreementRunListApi
from .fam_apis import CampaignAgreementApi

urlpatterns = [
    path(
        "campaigns/<int:pk>/agreement/",
        CampaignAgreementApi.as_view(),
        name="campaign-agreement",
    ),
    path("span-agreement/", SpanAgreementRunListApi.as_view(), name="span-agreement-list"),
    path(
        "span-agreement/<int:run_id>/",
        SpanAgreementRunDetailApi.as_view(),
        name="span-agreement-detail",
    ),
]
