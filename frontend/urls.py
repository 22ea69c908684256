"""URLs of the pages: login, invitation links, home, my tasks, workspaces, leaderboards and the
admin pages."""

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
    path("crossdataset/", views.crossdataset, name="crossdataset"),
    path("leaderboards/<slug:slug>/", views.leaderboard, name="leaderboard-page"),
    path("leaderboards/<slug:slug>/bias/", views.dataset_bias, name="dataset-bias-page"),
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
    path("manage/datasets/", views.manage_datasets, name="manage-datasets"),
    path("manage/datasets/<slug:slug>/", views.manage_dataset, name="manage-dataset"),
    path(
        "manage/datasets/<slug:slug>/agreement/",
        views.dataset_agreement,
        name="manage-dataset-agreement",
    ),
    path(
        "manage/datasets/<slug:slug>/releases/",
        views.manage_releases,
        name="manage-releases",
    ),
    path("manage/users/", views.manage_users, name="manage-users"),
    path("invite/<str:secret>/", views.invite, name="invite"),
    path("manage/campaigns/", views.manage_campaigns, name="manage-campaigns"),
    path("manage/campaigns/new/", views.manage_campaign_new, name="manage-campaign-new"),
    path("manage/campaigns/<int:campaign_id>/", views.manage_campaign, name="manage-campaign"),
    path(
        "manage/campaigns/<int:campaign_id>/agreement/",
        views.campaign_agreement,
        name="manage-campaign-agreement",
    ),
    path(
        "manage/campaigns/<int:campaign_id>/adjudication/",
        views.adjudication_list,
        name="adjudication-list",
    ),
    path(
        "manage/campaigns/<int:campaign_id>/adjudication/<int:document_id>/",
        views.adjudication_document,
        name="adjudication-document",
    ),
    path("", views.home, name="home"),
]
