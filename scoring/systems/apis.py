"""System APIs: list, read and register systems, and list a system's outputs."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from config.pagination import paginated_response

from .models import System, SystemKind
from .selectors import system_get, system_list, system_output_list
from .services import system_create


class SystemSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    description = serializers.CharField()
    trained_on = serializers.CharField()
    owner = serializers.CharField(source="owner.username", default=None)
    output_count = serializers.IntegerField(default=0)


class SystemListApi(APIView):
    """Every registered system."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=SystemSerializer(many=True))
    def get(self, request):
        return Response(SystemSerializer(system_list().select_related("owner"), many=True).data)


class SystemCreateApi(APIView):
    """Register a new system; the caller becomes its owner."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        slug = serializers.SlugField(max_length=64)
        name = serializers.CharField(max_length=200)
        kind = serializers.ChoiceField(choices=SystemKind.choices)
        description = serializers.CharField(required=False, default="", allow_blank=True)
        trained_on = serializers.CharField(required=False, default="", allow_blank=True)

    @extend_schema(request=InputSerializer, responses={201: SystemSerializer})
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        system = system_create(owner=request.user, **serializer.validated_data)
        return Response(SystemSerializer(system).data, status=status.HTTP_201_CREATED)


class SystemDetailApi(APIView):
    """One system."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=SystemSerializer)
    def get(self, request, slug: str):
        return Response(SystemSerializer(system_get(slug=slug)).data)


class SystemOutputListApi(APIView):
    """A system's outputs (paginated), optionally for one dataset."""

    permission_classes = [IsResearcherOrAdmin]

    class OutputSerializer(serializers.Serializer):
        document_id = serializers.IntegerField(source="document.id")
        dataset = serializers.CharField(source="document.dataset.slug")
        external_id = serializers.CharField(source="document.external_id")
        sentences = serializers.ListField(child=serializers.CharField())
        extracted = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
        extraction_method = serializers.CharField()
        match_confidence = serializers.ListField(child=serializers.FloatField(), allow_null=True)

    @extend_schema(
        parameters=[OpenApiParameter("dataset", str, required=False)],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, slug: str):
        system = get_object_or_404(System, slug=slug)
        outputs = system_output_list(
            system=system, dataset_slug=request.query_params.get("dataset")
        )
        return paginated_response(request, self, outputs, self.OutputSerializer)
