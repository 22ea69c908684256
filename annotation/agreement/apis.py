"""Span agreement APIs (admins): start a run, read a run's status and result."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin

from .selectors import run_as_dict, span_agreement_run_get
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
    result = serializers.JSONField(allow_null=True, required=False)


class SpanAgreementRunCreateApi(APIView):
    """Start a span agreement run over a PolyTope campaign or several annotation sets."""

    permission_classes = [IsAdmin]

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

    @extend_schema(request=InputSerializer, responses={202: SpanAgreementRunSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = span_agreement_run_create(
            campaign=data.validated_data.get("campaign"),
            annotation_sets=data.validated_data.get("annotation_sets"),
            min_iou=data.validated_data["min_iou"],
            submitted_only=data.validated_data["submitted_only"],
            user=request.user,
        )
        run = span_agreement_run_get(run_id=run.pk)
        return Response(run_as_dict(run), status=status.HTTP_202_ACCEPTED)


class SpanAgreementRunDetailApi(APIView):
    """One span agreement run: status, timings, the error if it failed, the result if done."""

    permission_classes = [IsAdmin]

    @extend_schema(responses=SpanAgreementRunSerializer)
    def get(self, request, run_id: int):
        return Response(run_as_dict(span_agreement_run_get(run_id=run_id)))
