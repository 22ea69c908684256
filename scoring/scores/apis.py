"""Scoring-job APIs: list a dataset's jobs, start one, and read one job's live status."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset

from .models import JobTrigger
from .selectors import job_as_dict, scoring_job_get, scoring_job_list
from .services import scoring_job_create


class ScoringJobListApi(APIView):
    """A dataset's scoring jobs, newest first (the latest 50)."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        jobs = scoring_job_list(dataset=dataset).select_related("dataset")[:50]
        return Response([job_as_dict(job) for job in jobs])


class ScoringJobStartApi(APIView):
    """Rescore every system's latest outputs for a dataset, at the cut-offs asked for."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        ks = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=50),
            required=False,
            min_length=1,
            max_length=10,
        )

    @extend_schema(request=InputSerializer, responses={202: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job = scoring_job_create(
            dataset=dataset,
            trigger=JobTrigger.MANUAL,
            ks=serializer.validated_data.get("ks"),
            user=request.user,
        )
        return Response(job_as_dict(job), status=status.HTTP_202_ACCEPTED)


class ScoringJobDetailApi(APIView):
    """One scoring job: status, progress, counts, timings and the error if it failed."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, job_id: int):
        return Response(job_as_dict(scoring_job_get(job_id=job_id)))
