"""URLs of the accounts API."""

from django.urls import path

from .apis import MeApi, MeTokenApi, TokenObtainApi, UserListApi

urlpatterns = [
    path("me/", MeApi.as_view(), name="me"),
    path("me/token/", MeTokenApi.as_view(), name="me-token"),
    path("users/", UserListApi.as_view(), name="user-list"),
    path("auth/token/", TokenObtainApi.as_view(), name="token-obtain"),
]
