"""System APIs: list, read and register systems, list their outputs and upload new ones."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from annotation.systems.models import System, SystemKind
from annotation.systems.selectors import (
    system_get,
    system_list,
    system_list_for_dataset,
    system_output_list,
)
from config.pagination import paginated_response
from config.uploads import upload_size_check

from .services import (
    system_create,
    system_outputs_upload,
    system_record_for_upload,
)

# Room for the multipart envelope and the form's other fields around the file itself.
MULTIPART_OVERHEAD = 64 * 1024


class SystemSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    description = serializers.CharField()
    trained_on = serializers.CharField()
    owner = serializers.CharField(source="owner.username", default=None)
    output_count = serializers.IntegerField(default=0)


class SystemListApi(APIView):
    """Every registered system; with ``?dataset=<slug>``, the systems with outputs on that
    dataset, each ``output_count`` its latest version's outputs there."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "dataset",
                str,
                description="Only this dataset's systems, with their output counts on it.",
            )
        ],
        responses={
            200: SystemSerializer(many=True),
            404: OpenApiResponse(description="No such dataset."),
        },
    )
    def get(self, request):
        slug = request.query_params.get("dataset")
        if slug:
            dataset = get_object_or_404(Dataset, slug=slug)
            systems = system_list_for_dataset(dataset=dataset)
        else:
            systems = system_list()
        return Response(SystemSerializer(systems.select_related("owner"), many=True).data)


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
        version = serializers.IntegerField(source="version.number")

    class FilterSerializer(serializers.Serializer):
        dataset = serializers.SlugField(required=False)
        version = serializers.IntegerField(required=False, min_value=1)

    @extend_schema(
        parameters=[
            OpenApiParameter("dataset", str, required=False),
            OpenApiParameter("version", int, required=False, description="Only this version."),
        ],
        responses=OutputSerializer(many=True),
    )
    def get(self, request, slug: str):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        system = get_object_or_404(System, slug=slug)
        outputs = system_output_list(
            system=system, dataset_slug=filters.validated_data.get("dataset")
        ).select_related("version")
        if "version" in filters.validated_data:
            outputs = outputs.filter(version__number=filters.validated_data["version"])
        return paginated_response(request, self, outputs, self.OutputSerializer)


class SystemOutputUploadApi(APIView):
    """Upload a system's outputs for a dataset: a JSONL file or a zip of <doc_id>.txt files.

    Everything is validated before anything is written; the outputs become the system's next
    version and a scoring job is queued for it. A dry run validates only (200, no job).
    """

    permission_classes = [IsResearcherOrAdmin]
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField(help_text=".jsonl (or .json) file, or .zip of <doc_id>.txt")
        system = serializers.SlugField(max_length=64, help_text="The system's slug.")
        name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
        kind = serializers.ChoiceField(
            choices=SystemKind.choices,
            required=False,
            default="",
            allow_blank=True,
            help_text="Required when the system is new.",
        )
        description = serializers.CharField(required=False, default="", allow_blank=True)
        trained_on = serializers.CharField(
            max_length=200,
            required=False,
            default="",
            allow_blank=True,
            help_text="Slug of the dataset the system was trained on (cross-dataset "
            "evaluation). Sets a new system's; must equal an existing system's.",
        )
        dry_run = serializers.BooleanField(default=False)
        accept_low_confidence = serializers.BooleanField(
            default=False,
            help_text="Keep extractive sentences whose nearest document sentence has a TF-IDF "
            "cosine below 0.3 (listed in the report) instead of refusing the upload.",
        )

    class OutputSerializer(serializers.Serializer):
        dataset = serializers.CharField()
        system = serializers.CharField()
        system_created = serializers.BooleanField()
        version = serializers.IntegerField(help_text="The new version (dry run: would-be).")
        documents = serializers.IntegerField(help_text="Documents covered by this upload.")
        dataset_documents = serializers.IntegerField(help_text="Documents in the dataset.")
        outputs = serializers.IntegerField()
        dry_run = serializers.BooleanField()
        report = serializers.ListField(
            child=serializers.CharField(), help_text="Low-confidence text-to-index mappings."
        )
        scoring_job = serializers.IntegerField(allow_null=True)
        scoring_job_url = serializers.CharField(allow_null=True)
        leaderboard_url = serializers.CharField()

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={
            201: OutputSerializer,
            200: OpenApiResponse(OutputSerializer, description="Dry run: nothing written."),
            400: OpenApiResponse(description="Invalid upload; extra.issues names each problem."),
            413: OpenApiResponse(description="Over LOUPE_UPLOAD_MAX_BYTES."),
        },
    )
    def post(self, request, slug: str):
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        # Refuse before the body is read (the multipart envelope adds a little).
        upload_size_check(size=length, name="The upload", allowance=MULTIPART_OVERHEAD)
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        system = system_record_for_upload(
            slug=data["system"],
            name=data["name"],
            kind=data["kind"],
            description=data["description"],
            trained_on=data["trained_on"],
            user=request.user,
        )
        upload = system_outputs_upload(
            dataset=dataset,
            system=system,
            source=data["file"],
            filename=data["file"].name,
            user=request.user,
            dry_run=data["dry_run"],
            accept_low_confidence=data["accept_low_confidence"],
        )
        summary = upload.summary
        job = upload.job_id
        body = {
            "dataset": dataset.slug,
            "system": upload.system,
            "system_created": upload.system in summary.systems_created,
            "version": upload.version,
            "documents": summary.outputs,  # one output per document
            "dataset_documents": dataset.documents.count(),
            "outputs": summary.outputs,
            "dry_run": summary.dry_run,
            "report": [str(line) for line in summary.report],
            "scoring_job": job,
            "scoring_job_url": f"/api/scoring-jobs/{job}/" if job else None,
            "leaderboard_url": f"/leaderboards/{dataset.slug}/",
        }
        code = status.HTTP_200_OK if summary.dry_run else status.HTTP_201_CREATED
        return Response(self.OutputSerializer(body).data, status=code)
