"""Spans APIs: upload an official PolyTope workbook (admins), export a span set (xlsx or JSONL)."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin
from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSet
from config.exceptions import ApplicationError
from config.uploads import upload_size_check

from .selectors_workbook import FORMATS, span_set_export, span_set_export_allowed
from .services_workbook import RELEASE_SET, polytope_workbook_import
from .workbook import JSONL_TYPE, XLSX_TYPE


class PolytopeWorkbookImportApi(APIView):
    """Import one system's official PolyTope workbook (``Human_Annotation_*.xlsm``) as spans.

    The workbook's Error Log is read as data only (no macro, formula or link is run), matched
    to the system's outputs on the dataset, checked in full, and written as the released set's
    rows for that system in one transaction. A refused import writes nothing (400 with every
    problem); the report lists what was left out or differs from the sheet.
    """

    permission_classes = [IsAdmin]
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        system = serializers.SlugField(max_length=64)
        set = serializers.SlugField(max_length=64, default=RELEASE_SET)
        dry_run = serializers.BooleanField(default=False)
        keep_uncounted = serializers.BooleanField(default=False)
        strict = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer):
        class SeveritiesSerializer(serializers.Serializer):
            critical = serializers.IntegerField()
            major = serializers.IntegerField()
            minor = serializers.IntegerField()

        dataset = serializers.CharField()
        system = serializers.CharField()
        annotation_set = serializers.CharField()
        set_created = serializers.BooleanField()
        dry_run = serializers.BooleanField()
        workbook = serializers.CharField()
        rows = serializers.IntegerField()
        segments = serializers.IntegerField()
        placed = serializers.IntegerField()
        unplaced = serializers.IntegerField()
        with_errors = serializers.IntegerField()
        clean = serializers.IntegerField()
        errors = serializers.IntegerField()
        severities = SeveritiesSerializer()
        words = serializers.IntegerField()
        score = serializers.FloatField(allow_null=True)
        scorecard_lqi = serializers.FloatField(allow_null=True)
        report = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        request=InputSerializer, responses={201: OutputSerializer, 200: OutputSerializer}
    )
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        upload = data["file"]
        upload_size_check(size=upload.size, name=upload.name)
        result = polytope_workbook_import(
            dataset=dataset,
            system_slug=data["system"],
            source=upload,
            filename=upload.name,
            set_slug=data["set"],
            user=request.user,
            dry_run=data["dry_run"],
            keep_uncounted=data["keep_uncounted"],
            strict=data["strict"],
        )
        code = status.HTTP_200_OK if result.dry_run else status.HTTP_201_CREATED
        return Response(self.OutputSerializer(result.as_dict()).data, status=code)


class _FormatNamesTheFile(DefaultContentNegotiation):
    """Here ``?format=`` chooses the exported file, not DRF's renderer (errors stay JSON)."""

    class settings:  # noqa: N801 - stands in for DRF's api_settings
        URL_FORMAT_OVERRIDE = None


class AnnotationSetExportApi(APIView):
    """Download a span set as the official PolyTope workbook (``xlsx``) or as JSONL.

    Admins may export any span set, and so may the creator of the set's campaign; researchers
    only released and gold sets. The workbook holds values only (no formula) and text escaped
    against formula injection; its Error Log adds Annotator, System and the span columns after
    the official columns, so that importing it gives the same annotations back.
    """

    permission_classes = [IsAuthenticated]
    content_negotiation_class = _FormatNamesTheFile

    class InputSerializer(serializers.Serializer):
        format = serializers.ChoiceField(choices=FORMATS, default="xlsx")
        system = serializers.SlugField(max_length=64, required=False)

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=list(FORMATS), description="xlsx or jsonl"),
            OpenApiParameter("system", str, required=False, description="only this system"),
        ],
        responses={
            (200, XLSX_TYPE): OpenApiResponse(OpenApiTypes.BINARY, description="the workbook"),
            (200, JSONL_TYPE): OpenApiResponse(OpenApiTypes.STR, description="one JSON a line"),
        },
    )
    def get(self, request, pk: int):
        annotation_set = get_object_or_404(AnnotationSet.objects.select_related("dataset"), pk=pk)
        if not span_set_export_allowed(user=request.user, annotation_set=annotation_set):
            raise ApplicationError(
                "Only admins (and the campaign's creator) may export this set; researchers "
                "may export released and gold sets.",
                status_code=status.HTTP_403_FORBIDDEN,
            )
        if annotation_set.is_fam:
            raise ApplicationError("This annotation set holds FAMs, not error spans.")
        serializer = self.InputSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        try:
            export = span_set_export(
                annotation_set=annotation_set,
                file_format=serializer.validated_data["format"],
                system=serializer.validated_data.get("system"),
            )
        except ValueError as error:
            raise ApplicationError(str(error)) from error
        response = HttpResponse(export.body, content_type=export.content_type)
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response
