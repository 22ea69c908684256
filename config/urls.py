"""Root URLs: pages, admin, the JSON API, its schema and docs, and /healthz."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from .health import healthz

api_patterns = [
    path("", include("annotation.accounts.urls")),
    path("", include("annotation.corpus.urls")),
    path("", include("annotation.fams.urls")),
    path("", include("annotation.campaigns.urls")),
    path("", include("annotation.spans.urls")),
    path("", include("annotation.agreement.urls")),
    path("", include("annotation.adjudication.urls")),
    path("", include("annotation.users.urls")),
    path("", include("scoring.uploads.urls")),
    path("", include("scoring.scores.urls")),
    path("", include("scoring.judgments.urls")),
    path("", include("scoring.leaderboards.urls")),
    path("", include("scoring.releases.urls")),
    path("", include("scoring.autofar.urls")),
    path("", include("scoring.bias.urls")),
    path("", include("scoring.crossdataset.urls")),
    path("", include("scoring.apes.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include((api_patterns, "api"))),
    path(
        "api/schema/",
        SpectacularAPIView.as_view(),
        name="schema",
    ),
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema"),
        name="api-docs",
    ),
    path("healthz", healthz, name="healthz"),
    path("", include("frontend.urls")),
]

handler404 = "config.exceptions.not_found"
handler500 = "config.exceptions.server_error"
