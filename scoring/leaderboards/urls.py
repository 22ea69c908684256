"""URLs of the leaderboards API: tables, downloads, plots and per-document views."""

from django.urls import path

from .apis import (
    LeaderboardApi,
    LeaderboardExportApi,
    LeaderboardPlotApi,
    LeaderboardRougeApi,
    OutputDocumentApi,
    SystemScoresApi,
    SystemVersionListApi,
)

urlpatterns: list = [
    path("datasets/<slug:slug>/leaderboard/", LeaderboardApi.as_view(), name="leaderboard"),
    path(
        "datasets/<slug:slug>/leaderboard/export/",
        LeaderboardExportApi.as_view(),
        name="leaderboard-export",
    ),
    path(
        "datasets/<slug:slug>/leaderboard/rouge/",
        LeaderboardRougeApi.as_view(),
        name="leaderboard-rouge",
    ),
    path(
        "datasets/<slug:slug>/leaderboard/plots/<slug:name>.svg",
        LeaderboardPlotApi.as_view(),
        name="leaderboard-plot",
    ),
    path(
        "datasets/<slug:slug>/systems/<slug:system>/versions/",
        SystemVersionListApi.as_view(),
        name="system-version-list",
    ),
    path(
        "datasets/<slug:slug>/systems/<slug:system>/scores/",
        SystemScoresApi.as_view(),
        name="system-scores",
    ),
    path(
        "datasets/<slug:slug>/systems/<slug:system>/documents/<str:external_id>/",
        OutputDocumentApi.as_view(),
        name="output-document",
    ),
]
