"""URLs of the pages: login, logout, home, my tasks, the workspace and the leaderboards."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="frontend/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("tasks/", views.tasks, name="tasks"),
    path("tasks/<int:task_id>/", views.workspace, name="workspace"),
    path("upload/", views.upload, name="upload"),
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("leaderboards/<slug:slug>/", views.leaderboard, name="leaderboard-page"),
    path(
        "leaderboards/<slug:slug>/systems/<slug:system>/",
        views.leaderboard_system,
        name="leaderboard-system",
    ),
    path(
        "leaderboards/<slug:slug>/systems/<slug:system>/documents/<str:external_id>/",
        views.leaderboard_document,
        name="leaderboard-document",
    ),
    path("", views.home, name="home"),
]
