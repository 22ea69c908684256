"""APES APIs: start a run, read one run's status, list a dataset's runs and per-system APES."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset

from .nlp import ANSWERER_KEYS
from .selectors import (
    apes_run_as_dict,
    apes_run_get,
    apes_run_list,
    apes_start_state,
    apes_system_list,
)
from .services import apes_run_start


class ApesRunListApi(APIView):
    """A dataset's APES runs, newest first (the latest 50)."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response([apes_run_as_dict(run) for run in apes_run_list(dataset=dataset)[:50]])


class ApesRunStatusApi(APIView):
    """The dataset's latest APES run and what is missing to start one (the page's panel)."""

    permission_classes = [IsResearcherOrAdmin]

    class OutputSerializer(serializers.Serializer):
        dataset = serializers.CharField()
        latest = serializers.JSONField(
            allow_null=True, help_text="The newest run (as GET /api/apes-runs/<id>/), or null."
        )
        missing = serializers.CharField(
            allow_blank=True,
            help_text="Why a run cannot start (no outputs, no answerer or spaCy model), "
            "saying how to add it; empty when it can.",
        )

    @extend_schema(responses=OutputSerializer)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response(self.OutputSerializer(apes_start_state(dataset=dataset)).data)


class ApesRunStartApi(APIView):
    """Start an APES run over every system's current outputs of a dataset (202, queued).

    400 when the dataset has no outputs (or no answerer can run), 409 while a run of the
    dataset is queued or running (``extra.run`` names it).
    """

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        answerers = serializers.ListField(
            child=serializers.ChoiceField(choices=ANSWERER_KEYS),
            required=False,
            min_length=1,
            max_length=len(ANSWERER_KEYS),
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            202: OpenApiTypes.OBJECT,
            400: OpenApiResponse(description="Nothing to score, or no answerer can run."),
            409: OpenApiResponse(description="A run of the dataset is queued or running."),
        },
    )
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = apes_run_start(
            dataset=dataset,
            answerers=serializer.validated_data.get("answerers"),
            user=request.user,
        )
        return Response(apes_run_as_dict(run), status=status.HTTP_202_ACCEPTED)


class ApesRunDetailApi(APIView):
    """One APES run: status, progress, answerers (and the skipped ones), outcomes, error."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, run_id: int):
        return Response(apes_run_as_dict(apes_run_get(run_id=run_id)))


class ApesSystemListApi(APIView):
    """Per-system APES of a dataset's current outputs, per answerer, from the stored scores."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response({"dataset": dataset.slug, "systems": apes_system_list(dataset=dataset)})
