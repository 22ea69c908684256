"""FAM APIs: read a dataset's annotation sets and their FAMs (researchers and admins)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from config.pagination import paginated_response

from .models import AnnotationSet
from .selectors import annotation_set_list, fam_list


class AnnotationSetListApi(APIView):
    """A dataset's annotation sets (released, human, gold, machine)."""

    permission_classes = [IsResearcherOrAdmin]

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        slug = serializers.CharField()
        name = serializers.CharField()
        kind = serializers.CharField()
        read_only = serializers.BooleanField()
        fam_count = serializers.IntegerField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response(self.OutputSerializer(annotation_set_list(dataset=dataset), many=True).data)


class FamListApi(APIView):
    """The FAMs of one annotation set (paginated)."""

    permission_classes = [IsResearcherOrAdmin]

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        document_id = serializers.IntegerField(source="document.id")
        external_id = serializers.CharField(source="document.external_id")
        reference = serializers.IntegerField(source="reference.position")
        annotator = serializers.CharField(source="annotator.username", default=None)
        facets = serializers.JSONField()
        version = serializers.IntegerField()
        updated_at = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, pk: int):
        annotation_set = get_object_or_404(AnnotationSet, pk=pk)
        return paginated_response(
            request, self, fam_list(annotation_set=annotation_set), self.OutputSerializer
        )
