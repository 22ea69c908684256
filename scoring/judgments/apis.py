"""Human-judgment APIs: list a dataset's studies, upload one (CSV or JSONL), delete one."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from config.uploads import upload_size_check

from .selectors import human_judgment_study_list
from .services import human_judgment_study_delete, human_judgments_import


class JudgmentListApi(APIView):
    """A dataset's human judgment studies (GET), or upload a new one (POST, multipart)."""

    permission_classes = [IsResearcherOrAdmin]
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField(
            help_text="CSV (system,score | system,rank | system,doc_id,score | "
            "system,doc_id,rank) or JSONL ({system, doc_id?, score|rank} per line)."
        )
        name = serializers.SlugField(max_length=64, help_text="The study's name.")
        replace = serializers.BooleanField(
            default=False, help_text="Replace an existing study of that name."
        )

    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        kind = serializers.CharField(help_text="score (higher is better) or rank (1 is best).")
        per_document = serializers.BooleanField()
        rows = serializers.IntegerField()
        systems = serializers.ListField(child=serializers.CharField())
        replaced = serializers.BooleanField()

    class StudySerializer(serializers.Serializer):
        name = serializers.CharField()
        kind = serializers.CharField(help_text="score (higher is better) or rank (1 is best).")
        per_document = serializers.BooleanField()
        n_systems = serializers.IntegerField()
        n_documents = serializers.IntegerField()
        n_rows = serializers.IntegerField()
        uploaded_at = serializers.DateTimeField()
        uploaded_by = serializers.CharField(
            allow_null=True, help_text="The uploader's username (null: the shell, or several)."
        )
        can_delete = serializers.BooleanField(
            help_text="Whether the requesting user may replace or delete the study."
        )

    @extend_schema(responses=StudySerializer(many=True))
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        studies = human_judgment_study_list(dataset=dataset, user=request.user)
        return Response(self.StudySerializer(studies, many=True).data)

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={
            201: OutputSerializer,
            400: OpenApiResponse(description="Invalid file; extra.issues names each problem."),
            409: OpenApiResponse(description="A study of that name exists (send replace)."),
            413: OpenApiResponse(description="Over LOUPE_UPLOAD_MAX_BYTES."),
        },
    )
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        upload_size_check(size=upload.size, name=upload.name)
        result = human_judgments_import(
            dataset=dataset,
            name=serializer.validated_data["name"],
            source=upload,
            filename=upload.name,
            user=request.user,
            replace=serializer.validated_data["replace"],
        )
        return Response(self.OutputSerializer(result).data, status=status.HTTP_201_CREATED)


class JudgmentDetailApi(APIView):
    """Delete one human judgment study of a dataset."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        responses={204: None, 404: OpenApiResponse(description="No study of that name.")}
    )
    def delete(self, request, slug: str, study: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        human_judgment_study_delete(dataset=dataset, name=study, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
