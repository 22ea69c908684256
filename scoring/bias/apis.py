"""Bias API: read a dataset's latest bias figures (stale flag included), start a run."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from scoring.leaderboards.selectors.board import leaderboard_colours

from .plots import PLOTS, bias_plot_svg
from .selectors import (
    bias_read_allowed,
    bias_rows_list,
    bias_run_latest_succeeded,
    dataset_bias_get,
)
from .services import bias_run_start


class CanReadBias(BasePermission):
    """Anyone for a public dataset; researchers and admins for the others (the leaderboard's)."""

    message = (
        "Only researchers and admins may read the bias figures of a dataset that is not public."
    )

    def has_permission(self, request, view) -> bool:
        dataset = Dataset.objects.filter(slug=view.kwargs.get("slug")).first()
        if dataset is None:
            return True  # the view answers 404
        return bias_read_allowed(user=request.user, dataset=dataset)


class BiasRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text="queued, running, succeeded or failed.")
    trigger = serializers.CharField()
    progress = serializers.FloatField(help_text="Done share of the run's chunks, 0 to 1.")
    chunks_done = serializers.IntegerField()
    chunks_total = serializers.IntegerField()
    reused_from = serializers.IntegerField(
        allow_null=True, help_text="The run whose rows this one reuses (same inputs)."
    )
    recoveries = serializers.IntegerField(
        help_text="How many times the job kernel's watchdog re-sent the run's work."
    )
    recovery_note = serializers.CharField(allow_blank=True, help_text="The last recovery's note.")
    error = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class BiasRowSerializer(serializers.Serializer):
    source = serializers.CharField(help_text="reference, or the system's slug.")
    kind = serializers.CharField(help_text="reference, extractive or abstractive.")
    version = serializers.IntegerField(allow_null=True)
    n_items = serializers.IntegerField(help_text="(document, summary) pairs.")
    n_empty_summaries = serializers.IntegerField()
    coverage = serializers.FloatField()
    density = serializers.FloatField()
    compression = serializers.FloatField()
    copy_length = serializers.FloatField()
    novel = serializers.ListField(
        child=serializers.FloatField(allow_null=True), help_text="Novel 1- to 4-grams."
    )
    repeated = serializers.ListField(
        child=serializers.FloatField(allow_null=True), help_text="Repeated 1- to 4-grams."
    )
    ngram_counts = serializers.ListField(child=serializers.IntegerField())
    fusion = serializers.FloatField(allow_null=True)
    mean_position = serializers.FloatField(allow_null=True)
    position_histogram = serializers.ListField(child=serializers.FloatField())


class DatasetBiasApi(APIView):
    """GET: a dataset's bias figures, one row per source (references first, then systems).
    POST (researchers, admins): compute them now.

    POST answers 200 with the current figures when the dataset's inputs have not changed since
    the latest run succeeded, else 202 once a run waits for a worker (poll GET for progress);
    400 when there is nothing to measure, 409 while a run is queued or running (``extra.run``).
    """

    class OutputSerializer(serializers.Serializer):
        dataset = serializers.CharField()
        status = serializers.CharField(
            help_text="The latest run's status: none (before any), queued, running, succeeded "
            "or failed."
        )
        stale = serializers.BooleanField(
            help_text="The rows were computed from other inputs than the dataset's now."
        )
        run = BiasRunSerializer(allow_null=True, help_text="The latest run.")
        computed_by = BiasRunSerializer(
            allow_null=True, help_text="The succeeded run the rows come from."
        )
        rows = BiasRowSerializer(many=True)
        meta = serializers.JSONField(
            help_text="documents, documents_without_text_left_out, systems, output_versions, "
            "bins, pairs per source."
        )
        missing = serializers.CharField(
            allow_blank=True,
            help_text="Why a run would have nothing to measure, saying what to add; empty "
            "when it can run.",
        )

    def get_permissions(self):
        if self.request.method == "POST":
            return [IsResearcherOrAdmin()]
        return [CanReadBias()]

    @extend_schema(responses=OutputSerializer)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        return Response(dataset_bias_get(dataset=dataset))

    @extend_schema(
        request=None,
        responses={
            200: OutputSerializer,
            202: OutputSerializer,
            400: OpenApiResponse(description="Nothing to measure (the message says why)."),
            409: OpenApiResponse(description="A run of the dataset is queued or running."),
        },
    )
    def post(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        _, queued = bias_run_start(dataset=dataset, user=request.user)
        code = status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK
        return Response(dataset_bias_get(dataset=dataset, check_stale=not queued), status=code)


class DatasetBiasPlotApi(APIView):
    """A bias plot of the dataset's latest figures, rendered as SVG on the server (values in
    ``data-*`` attributes): ``novel``, ``abstractiveness`` or ``positions``."""

    permission_classes = [CanReadBias]

    @extend_schema(responses={(200, "image/svg+xml"): OpenApiTypes.STR})
    def get(self, request, slug: str, name: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        if name not in PLOTS:
            return Response(
                {"message": f"unknown plot {name!r}; plots: {', '.join(PLOTS)}", "extra": {}},
                status=status.HTTP_404_NOT_FOUND,
            )
        run = bias_run_latest_succeeded(dataset=dataset)
        rows = bias_rows_list(run=run) if run else []
        colours = leaderboard_colours(dataset=dataset)  # a system's colour on its leaderboard
        svg = bias_plot_svg(name, rows, colours=colours)
        response = HttpResponse(svg, content_type="image/svg+xml")
        response["Cache-Control"] = "private, max-age=0"
        return response
