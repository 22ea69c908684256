"""OpenAPI schema: unique names for the nested Input/Output serializers, and who may read it."""

from django.conf import settings
from drf_spectacular.openapi import AutoSchema
from rest_framework.permissions import BasePermission


class LoupeAutoSchema(AutoSchema):
    """Name nested serializers after their API view: ``MeApi.OutputSerializer`` -> ``MeOutput``."""

    def get_serializer_name(self, serializer, direction):
        name = super().get_serializer_name(serializer, direction)
        outer = type(serializer).__qualname__.split(".")
        if len(outer) > 1:
            prefix = "".join(
                part.removesuffix("Api").removesuffix("Serializer") for part in outer[:-1]
            )
            name = prefix + name
        return name


class ApiDocsPermission(BasePermission):
    """Any logged-in user (session or API token) may read the schema and its docs page;
    everyone may when ``settings.LOUPE_API_DOCS_PUBLIC`` is on."""

    message = "Log in (or send an API token) to read the API schema."

    def has_permission(self, request, view) -> bool:
        """Args: request: DRF's request. view: the schema view. Returns: whether to serve it."""
        return bool(settings.LOUPE_API_DOCS_PUBLIC or request.user.is_authenticated)
