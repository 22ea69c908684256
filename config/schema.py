"""OpenAPI schema tweaks: unique component names for the nested Input/Output serializers."""

from drf_spectacular.openapi import AutoSchema


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
