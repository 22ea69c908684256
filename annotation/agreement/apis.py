"""Span agreement APIs: list a dataset's runs, start a run (admins), read one's result."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import ADMIN, IsAdmin, IsResearcherOrAdmin, has_role
from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError

from .models import RunSource, RunStatus
from .selectors import (
    run_as_dict,
    span_agreement_run_get,
    span_agreement_run_list,
    span_agreement_runs_as_dicts,
)
from .services import span_agreement_run_create


class SpanAgreementRunSerializer(serializers.Serializer):
    """A run as the API shows it (``result`` only once it succeeded)."""

    id = serializers.IntegerField()
    dataset = serializers.CharField()
    scheme = serializers.CharField()
    source = serializers.CharField(help_text="campaign or annotation_sets")
    campaign = serializers.IntegerField(allow_null=True)
    annotation_sets = serializers.ListField(child=serializers.IntegerField())
    min_iou = serializers.FloatField()
    submitted_only = serializers.BooleanField()
    status = serializers.CharField(help_text="queued, running, succeeded or failed")
    error = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)
    inputs_digest = serializers.CharField(
        allow_blank=True, help_text="SHA-256 of the annotations the run read (blank: not yet)."
    )
    current_digest = serializers.CharField(help_text="SHA-256 of those annotations now.")
    stale = serializers.BooleanField(
        help_text="A finished run whose annotations changed since it read them."
    )
    recoveries = serializers.IntegerField(
        help_text="How many times the job kernel's watchdog re-sent the run's work."
    )
    recovery_note = serializers.CharField(allow_blank=True, help_text="The last recovery.")
    result = serializers.JSONField(allow_null=True, required=False)


class SpanAgreementRunListApi(APIView):
    """Span agreement runs: ``GET`` lists a dataset's (or every) run, newest first, without
    results; ``POST`` starts a run over a PolyTope campaign or several annotation sets.

    ``POST`` answers 202 with the run queued (new, or one already queued over the same input),
    or 200 with the newest succeeded run when the annotations did not change since it read
    them (``force`` recomputes anyway).

    Researchers read the runs over annotation sets (a release's published annotators); a
    campaign's runs, which name its annotators, are for admins.
    """

    def get_permissions(self):
        if self.request.method == "GET":
            return [IsResearcherOrAdmin()]
        return [IsAdmin()]

    class FilterSerializer(serializers.Serializer):
        dataset = serializers.SlugField(required=False, help_text="Only this dataset's runs.")
        campaign = serializers.IntegerField(required=False, help_text="Only this campaign's.")

    class InputSerializer(serializers.Serializer):
        campaign = serializers.IntegerField(required=False, help_text="A PolyTope campaign.")
        annotation_sets = serializers.ListField(
            child=serializers.IntegerField(),
            required=False,
            max_length=50,
            help_text="Two or more span annotation sets of one dataset; each is one annotator.",
        )
        min_iou = serializers.FloatField(
            required=False, default=0.0, min_value=0.0, max_value=1.0,
            help_text="Lowest IoU of a partial match (0: any overlap).",
        )  # fmt: skip
        submitted_only = serializers.BooleanField(
            required=False, default=False, help_text="Campaigns: only submitted tasks' items."
        )
        force = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Recompute even if the newest run read the same annotations.",
        )

    @extend_schema(parameters=[FilterSerializer], responses=SpanAgreementRunSerializer(many=True))
    def get(self, request):
        data = self.FilterSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        dataset = None
        slug = data.validated_data.get("dataset")
        if slug is not None:
            dataset = Dataset.objects.filter(slug=slug).first()
            if dataset is None:
                raise ApplicationError(f"Unknown dataset {slug!r}.", status_code=404)
        runs = span_agreement_run_list(dataset=dataset).prefetch_related("annotation_sets")
        if "campaign" in data.validated_data:
            runs = runs.filter(campaign_id=data.validated_data["campaign"])
        if not has_role(request.user, ADMIN):
            runs = runs.filter(source=RunSource.ANNOTATION_SETS)
        return Response(span_agreement_runs_as_dicts(list(runs)))

    @extend_schema(
        request=InputSerializer,
        responses={200: SpanAgreementRunSerializer, 202: SpanAgreementRunSerializer},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = span_agreement_run_create(
            campaign=data.validated_data.get("campaign"),
            annotation_sets=data.validated_data.get("annotation_sets"),
            min_iou=data.validated_data["min_iou"],
            submitted_only=data.validated_data["submitted_only"],
            force=data.validated_data["force"],
            user=request.user,
        )
        run = span_agreement_run_get(run_id=run.pk)
        up_to_date = run.status == RunStatus.SUCCEEDED
        return Response(
            run_as_dict(run),
            status=status.HTTP_200_OK if up_to_date else status.HTTP_202_ACCEPTED,
        )


class SpanAgreementRunDetailApi(APIView):
    """One span agreement run: status, timings, the error if it failed, the result if done.

    Researchers may read runs over annotation sets; a campaign's runs are for admins.
    """

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=SpanAgreementRunSerializer)
    def get(self, request, run_id: int):
        run = span_agreement_run_get(run_id=run_id)
        if run.source == RunSource.CAMPAIGN and not has_role(request.user, ADMIN):
            raise ApplicationError(
                "A campaign's agreement names its annotators: only admins may read it.",
                status_code=403,
            )
        return Response(run_as_dict(run))
