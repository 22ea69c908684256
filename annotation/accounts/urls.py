"""URLs of the accounts API."""

from django.urls import path

from .apis import MeApi, TokenObtainApi, UserListApi

urlpatterns = [
    path("me/", MeApi.as_view(), name="me"),
    path("users/", UserListApi.as_view(), name="user-list"),
    path("auth/token/", TokenObtainApi.as_view(), name="token-obtain"),
]
