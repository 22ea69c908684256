"""AutoFAR APIs: list, create and read fits; start an AutoFAR-L run, list and read runs."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from scoring.metrics.far import DEFAULT_K

from .selectors import (
    autofar_fit_get,
    autofar_fit_list,
    autofar_run_get,
    autofar_run_list,
    autofar_start_state,
    fit_as_dict,
    run_as_dict,
)
from .services import autofar_fit_obtain, autofar_run_start
from .tables import DEFAULT_SCORERS, DEFAULT_TOP_NS


class AutoFarFitListApi(APIView):
    """Stored AutoFAR fits, newest first (the latest 50), of one dataset with ``?dataset=``."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        operation_id="autofar_fits_list",
        parameters=[OpenApiParameter("dataset", str, required=False)],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request):
        slug = request.query_params.get("dataset")
        dataset = get_object_or_404(Dataset, slug=slug) if slug else None
        return Response([fit_as_dict(fit) for fit in autofar_fit_list(dataset=dataset)[:50]])


class AutoFarFitCreateApi(APIView):
    """Fit AutoFAR on a dataset's human FAMs (201), or return the unchanged fit (200)."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        dataset = serializers.SlugField()
        scorers = serializers.ListField(
            child=serializers.CharField(max_length=40),
            required=False,
            min_length=1,
            max_length=8,
            default=list(DEFAULT_SCORERS),
        )
        top_ns = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=10),
            required=False,
            min_length=1,
            max_length=5,
            default=list(DEFAULT_TOP_NS),
        )
        k = serializers.IntegerField(min_value=1, max_value=50, default=DEFAULT_K)
        resamples = serializers.IntegerField(min_value=0, max_value=10000, default=1000)

    @extend_schema(
        request=InputSerializer,
        responses={201: OpenApiTypes.OBJECT, 200: OpenApiTypes.OBJECT},
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        dataset = get_object_or_404(Dataset, slug=data["dataset"])
        obtained = autofar_fit_obtain(
            dataset=dataset,
            scorers=data["scorers"],
            top_ns=data["top_ns"],
            k=data["k"],
            resamples=data["resamples"],
            user=request.user,
        )
        return Response(
            fit_as_dict(obtained.fit, report=True),
            status=status.HTTP_201_CREATED if obtained.created else status.HTTP_200_OK,
        )


class AutoFarFitDetailApi(APIView):
    """One fit with its Tables 6-8 (``report``)."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, fit_id: int):
        return Response(fit_as_dict(autofar_fit_get(fit_id=fit_id), report=True))


class AutoFarRunListApi(APIView):
    """A dataset's AutoFAR-L runs, newest first (the latest 50)."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response([run_as_dict(run) for run in autofar_run_list(dataset=dataset)[:50]])


class AutoFarRunStatusApi(APIView):
    """The dataset's latest AutoFAR-L run, the fits and fit datasets to choose from, and what
    is missing to start a run (the leaderboard's panel)."""

    permission_classes = [IsResearcherOrAdmin]

    class OutputSerializer(serializers.Serializer):
        dataset = serializers.CharField()
        latest = serializers.JSONField(
            allow_null=True, help_text="The newest run (as GET /api/autofar-runs/<id>/), or null."
        )
        fits = serializers.JSONField(help_text="The latest 20 stored fits, newest first.")
        fit_datasets = serializers.ListField(
            child=serializers.CharField(), help_text="Datasets with human FAMs to fit on."
        )
        missing = serializers.CharField(
            allow_blank=True,
            help_text="Why a run cannot start, saying how to add what is missing; empty when "
            "it can.",
        )

    @extend_schema(responses=OutputSerializer)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response(self.OutputSerializer(autofar_start_state(dataset=dataset)).data)


class AutoFarRunStartApi(APIView):
    """Start an AutoFAR-L run on a dataset with a stored fit (``fit``) or the fit on a dataset's
    human FAMs (``fit_dataset``, at ``k``; computed now or reused): 202.

    400 when neither or both are given, or the dataset has nothing to estimate; 409 while a
    run of the dataset is queued or running (``extra.run`` names it).
    """

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        fit = serializers.IntegerField(min_value=1, required=False)
        fit_dataset = serializers.SlugField(required=False)
        k = serializers.IntegerField(min_value=1, max_value=50, default=DEFAULT_K)

    @extend_schema(
        request=InputSerializer,
        responses={
            202: OpenApiTypes.OBJECT,
            400: OpenApiResponse(description="No fit given, or nothing to estimate."),
            409: OpenApiResponse(description="A run of the dataset is queued or running."),
        },
    )
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fit = autofar_fit_get(fit_id=data["fit"]) if "fit" in data else None
        fit_dataset = (
            get_object_or_404(Dataset, slug=data["fit_dataset"]) if "fit_dataset" in data else None
        )
        run = autofar_run_start(
            dataset=dataset, fit=fit, fit_dataset=fit_dataset, k=data["k"], user=request.user
        )
        return Response(run_as_dict(run), status=status.HTTP_202_ACCEPTED)


class AutoFarRunDetailApi(APIView):
    """One AutoFAR-L run: status, progress, counts, its fit and the result once finished."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, run_id: int):
        return Response(run_as_dict(autofar_run_get(run_id=run_id)))
