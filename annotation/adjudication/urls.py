"""URLs of the adjudication API."""

from django.urls import path

from . import apis

urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/adjudicators/",
        apis.CampaignAdjudicatorsApi.as_view(),
        name="campaign-adjudicators",
    ),
    path(
        "campaigns/<int:campaign_id>/adjudication/",
        apis.AdjudicationListApi.as_view(),
        name="adjudication-list",
    ),
    path(
        "campaigns/<int:campaign_id>/adjudication/<int:document_id>/",
        apis.AdjudicationDocumentApi.as_view(),
        name="adjudication-document",
    ),
    path(
        "campaigns/<int:campaign_id>/adjudication/<int:document_id>/done/",
        apis.AdjudicationDoneApi.as_view(),
        name="adjudication-done",
    ),
    path(
        "campaigns/<int:campaign_id>/adjudication/<int:document_id>/reopen/",
        apis.AdjudicationReopenApi.as_view(),
        name="adjudication-reopen",
    ),
]
