"""URLs of the pages: login, logout, home, my tasks and the workspace."""

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
    path("", views.home, name="home"),
]
