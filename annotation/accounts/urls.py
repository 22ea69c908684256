"""URLs of the accounts API."""

from django.urls import path

from .apis import MeApi, TokenObtainApi

urlpatterns = [
    path("me/", MeApi.as_view(), name="me"),
    path("auth/token/", TokenObtainApi.as_view(), name="token-obtain"),
]
