"""URLs of the user-management API."""

from django.urls import path

from . import apis

urlpatterns = [
    path("users/overview/", apis.UserOverviewApi.as_view(), name="user-overview"),
    path("users/create/", apis.UserCreateApi.as_view(), name="user-create"),
    path("users/invite/", apis.UserInviteApi.as_view(), name="user-invite"),
    path(
        "users/<str:username>/deactivate/",
        apis.UserDeactivateApi.as_view(),
        name="user-deactivate",
    ),
    path(
        "users/<str:username>/reactivate/",
        apis.UserReactivateApi.as_view(),
        name="user-reactivate",
    ),
    path(
        "users/<str:username>/password-reset/",
        apis.UserPasswordResetApi.as_view(),
        name="user-password-reset",
    ),
    path(
        "users/<str:username>/token/revoke/",
        apis.UserTokenRevokeApi.as_view(),
        name="user-token-revoke",
    ),
    path("invitations/accept/", apis.InvitationAcceptApi.as_view(), name="invitation-accept"),
]
