"""Corpus APIs: list and read datasets and documents, upload a dataset (a file or a packed
release folder), the import formats, edit sentences."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin, IsAnyRole
from annotation.imports.bundle import ImportValidationError
from config.exceptions import ApplicationError
from config.pagination import paginated_response
from config.uploads import upload_size_check

from .importers.formats import FORMATS
from .models import Category, Dataset, Document
from .selectors import (
    dataset_list,
    dataset_overview,
    document_get,
    document_is_frozen,
    document_list,
)
from .services import (
    FORMAT_ALIASES,
    dataset_import_upload,
    dataset_set_public,
    document_update_sentences,
)


class DatasetSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    source = serializers.CharField()
    license = serializers.CharField()
    public = serializers.BooleanField()
    document_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class DatasetDetailSerializer(DatasetSerializer):
    """A dataset with its category counts, annotation sets and campaigns."""

    class AnnotationSetSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        slug = serializers.CharField()
        name = serializers.CharField()
        kind = serializers.CharField()
        scheme = serializers.CharField()
        count = serializers.IntegerField(help_text="FAMs, or span annotations")

    class CampaignSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        slug = serializers.CharField()
        name = serializers.CharField()
        kind = serializers.CharField()
        status = serializers.CharField()

    categories = serializers.DictField(
        child=serializers.IntegerField(), help_text='Documents per category ("" = none).'
    )
    annotation_sets = AnnotationSetSerializer(many=True)
    campaigns = CampaignSerializer(many=True)


def _dataset_detail(slug: str) -> dict:
    dataset = get_object_or_404(dataset_list(), slug=slug)
    return {**DatasetSerializer(dataset).data, **dataset_overview(dataset=dataset)}


class DatasetListApi(APIView):
    """Every dataset with its document count."""

    permission_classes = [IsAnyRole]

    @extend_schema(responses=DatasetSerializer(many=True))
    def get(self, request):
        return Response(DatasetSerializer(dataset_list(), many=True).data)


class DatasetDetailApi(APIView):
    """One dataset (any role); admins may PATCH whether its releases are public."""

    permission_classes = [IsAnyRole]

    class UpdateInputSerializer(serializers.Serializer):
        public = serializers.BooleanField()

    def get_permissions(self):
        if self.request is not None and self.request.method == "PATCH":
            return [IsAdmin()]
        return super().get_permissions()

    @extend_schema(responses=DatasetDetailSerializer)
    def get(self, request, slug: str):
        return Response(DatasetDetailSerializer(_dataset_detail(slug)).data)

    @extend_schema(request=UpdateInputSerializer, responses=DatasetDetailSerializer)
    def patch(self, request, slug: str):
        serializer = self.UpdateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        dataset = get_object_or_404(Dataset, slug=slug)
        dataset_set_public(dataset=dataset, public=serializer.validated_data["public"])
        return Response(DatasetDetailSerializer(_dataset_detail(slug)).data)


def _issue_dict(issue) -> dict:
    location = issue.location
    return {
        "where": str(location),
        "file": location.file,
        "line": location.line,
        "field": location.field,
        "message": issue.message,
    }


class DatasetImportApi(APIView):
    """Upload a dataset through the pipeline of ``manage.py import_dataset``.

    ``format`` is ``jsonl`` (a file, the default) or a release folder format (``far-release``,
    ``polytope-release``, ``xsum-hallucinations``, ``realsumm``, ``loupe-release``; also ``far`` and
    ``polytope``) whose folder is uploaded packed as a .zip or .tar.gz. ``dry_run`` validates
    everything and writes nothing (200); an import answers 201. A refused one answers 400 with
    every problem in ``extra.issues`` (``where``, ``file``, ``line``, ``field``, ``message``)
    and writes nothing.
    """

    permission_classes = [IsAdmin]
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        slug = serializers.SlugField(max_length=64)
        name = serializers.CharField(max_length=200, required=False)
        format = serializers.ChoiceField(
            choices=[*FORMATS, *FORMAT_ALIASES], default="jsonl", required=False
        )
        dry_run = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer):
        class VersionSerializer(serializers.Serializer):
            system = serializers.CharField()
            version = serializers.IntegerField()

        dataset = serializers.CharField()
        documents = serializers.IntegerField()
        references = serializers.IntegerField()
        systems_created = serializers.ListField(child=serializers.CharField())
        systems_reused = serializers.ListField(child=serializers.CharField())
        outputs = serializers.IntegerField()
        annotation_sets = serializers.IntegerField()
        fams = serializers.IntegerField()
        span_annotations = serializers.IntegerField()
        judgments = serializers.IntegerField()
        released_scores = serializers.IntegerField()
        versions = VersionSerializer(many=True)
        dry_run = serializers.BooleanField()
        report = serializers.ListField(child=serializers.CharField())
        issues = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        request=InputSerializer, responses={200: OutputSerializer, 201: OutputSerializer}
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        upload_size_check(size=upload.size, name=upload.name)
        try:
            summary = dataset_import_upload(
                format_name=serializer.validated_data.get("format") or "jsonl",
                upload=upload,
                slug=serializer.validated_data["slug"],
                name=serializer.validated_data.get("name"),
                user=request.user,
                dry_run=serializer.validated_data["dry_run"],
            )
        except ImportValidationError as error:
            issues = [_issue_dict(issue) for issue in error.issues]
            raise ApplicationError(
                f"The import is invalid ({len(issues)} problem(s)); nothing was written.",
                extra={"issues": issues, "report": []},
            ) from error
        code = status.HTTP_200_OK if summary.dry_run else status.HTTP_201_CREATED
        body = {**summary.as_dict(), "issues": []}
        return Response(self.OutputSerializer(body).data, status=code)


class FormatListApi(APIView):
    """The dataset import formats: ``upload`` says whether a format takes a file or a release
    folder packed as an archive (.zip or .tar.gz)."""

    permission_classes = [IsAdmin]

    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        description = serializers.CharField()
        upload = serializers.ChoiceField(choices=["file", "archive"])

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request):
        formats = [
            {
                "name": f.name,
                "description": f.description,
                "upload": "archive" if f.takes_directory else "file",
            }
            for f in FORMATS.values()
        ]
        return Response(self.OutputSerializer(formats, many=True).data)


class DocumentSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = serializers.CharField()
    position = serializers.IntegerField()
    category = serializers.CharField()
    sentence_count = serializers.IntegerField()


class DocumentListApi(APIView):
    """A dataset's documents in order (paginated), optionally filtered by category."""

    permission_classes = [IsAnyRole]

    @extend_schema(
        parameters=[OpenApiParameter("category", str, enum=Category.values, required=False)],
        responses=DocumentSummarySerializer(many=True),
    )
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        category = request.query_params.get("category")
        if category and category not in Category.values:
            raise ApplicationError(f"category must be one of {Category.values}")
        documents = document_list(dataset=dataset, category=category)
        return paginated_response(request, self, documents, DocumentSummarySerializer)


class DocumentDetailApi(APIView):
    """One document: its sentences, references and whether it is frozen."""

    permission_classes = [IsAnyRole]

    class OutputSerializer(serializers.Serializer):
        class ReferenceSerializer(serializers.Serializer):
            id = serializers.IntegerField()
            position = serializers.IntegerField()
            label = serializers.CharField()
            sentences = serializers.ListField(child=serializers.CharField())

        id = serializers.IntegerField()
        dataset = serializers.CharField(source="dataset.slug")
        external_id = serializers.CharField()
        category = serializers.CharField()
        sentences = serializers.ListField(child=serializers.CharField())
        references = ReferenceSerializer(many=True, source="references.all")
        meta = serializers.DictField()
        frozen = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk: int):
        document = document_get(pk=pk)
        document.frozen = document_is_frozen(document=document)
        return Response(self.OutputSerializer(document).data)


class DocumentSentencesUpdateApi(APIView):
    """Replace a document's sentences (admins only; refused once the document is frozen)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        sentences = serializers.ListField(child=serializers.CharField(), allow_empty=False)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        sentences = serializers.ListField(child=serializers.CharField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request, pk: int):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        document = get_object_or_404(Document, pk=pk)
        document = document_update_sentences(
            document=document, sentences=serializer.validated_data["sentences"]
        )
        return Response(self.OutputSerializer(document).data)
