"""Leaderboard APIs: the table, its CSV/JSON downloads, SVG plots and one system's documents."""

from __future__ import annotations

import csv
import io
import json

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin, IsResearcherOrAdmin
from annotation.corpus.models import Dataset
from annotation.spans.workbook import escape_text
from annotation.systems.models import System
from scoring.metrics.rouge import ROUGE_ALL_TYPES
from scoring.scores.selectors import job_as_dict, rouge_settings_get, scoring_fams_exist
from scoring.scores.services import rouge_config_parse, rouge_settings_update

from .selectors import (
    CATEGORIES,
    dataset_metrics,
    leaderboard_colours,
    leaderboard_per_document,
    output_document_view,
    output_score_table,
    output_version_get,
    output_version_list,
)
from .services import leaderboard_serve

CATEGORY_CHOICES = [*CATEGORIES]
PLOTS = ("far-rouge1r", "far-sar", "categories", "far-distribution", "polytope-subtypes")


class LeaderboardParams(serializers.Serializer):
    category = serializers.ChoiceField(choices=CATEGORY_CHOICES, required=False, allow_blank=True)
    k = serializers.IntegerField(min_value=1, max_value=50, default=3)
    sort = serializers.CharField(required=False, allow_blank=True, max_length=24)
    common = serializers.BooleanField(default=False)


def _params(request) -> dict:
    serializer = LeaderboardParams(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    return {
        "category": data.get("category") or None,
        "k": data["k"],
        "sort": data.get("sort") or None,
        "common_only": data["common"],
    }


PARAMETERS = [
    OpenApiParameter("category", str, enum=CATEGORY_CHOICES, required=False),
    OpenApiParameter("k", int, required=False),
    OpenApiParameter("sort", str, required=False),
    OpenApiParameter("common", bool, required=False),
]


class LeaderboardApi(APIView):
    """A dataset's leaderboard: means with bootstrap 95% CIs, coverage and paired tests,
    ``colours``, each system's colour in the plots (for the table's swatches), and
    ``has_fams``, whether the dataset has a FAM FAR can be computed against (without one the
    page shows no FAR plots or filters)."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(parameters=PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        envelope = leaderboard_serve(dataset=dataset, **_params(request))
        return Response(
            {
                **envelope,
                "colours": leaderboard_colours(dataset=dataset),
                "has_fams": scoring_fams_exist(dataset=dataset),
            }
        )


class LeaderboardRougeApi(APIView):
    """A dataset's ROUGE settings: which of rouge-score's types its leaderboard shows, and how.

    GET (researchers and admins): ``rouge_types``, ``use_stemmer``, ``split_summaries`` (the
    options of ``RougeScorer``), the ``keys`` they store, the ``scorer`` call they equal,
    ``revision``, who changed them and when, ``status`` (``current``, ``rescoring`` while the
    job that rescores is queued or running, ``failed``) and the ``types`` to choose from.

    PUT (admins): the new settings, ``rouge_types`` required; an absent flag takes Loupe's
    default (``use_stemmer`` true, ``split_summaries`` false; rouge-score's own default is
    ``use_stemmer`` false). A change queues a scoring job that rescores every current output
    (``job``; None when nothing changed). A bad value answers 400 naming the option
    (``extra.field``), and nothing is written.
    """

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        rouge_types = serializers.ListField(child=serializers.CharField(max_length=16))
        use_stemmer = serializers.BooleanField(required=False)
        split_summaries = serializers.BooleanField(required=False)

    def get_permissions(self):
        if self.request is not None and self.request.method == "PUT":
            return [IsAdmin()]
        return super().get_permissions()

    @staticmethod
    def _body(dataset: Dataset) -> dict:
        return {
            "dataset": dataset.slug,
            **rouge_settings_get(dataset=dataset).as_dict(),
            "types": list(ROUGE_ALL_TYPES),
        }

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        return Response(self._body(get_object_or_404(Dataset, slug=slug)))

    @extend_schema(request=InputSerializer, responses=OpenApiTypes.OBJECT)
    def put(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        config = rouge_config_parse(serializer.validated_data)
        job = rouge_settings_update(dataset=dataset, config=config, user=request.user)
        return Response({**self._body(dataset), "job": job_as_dict(job)})


def _cell_text(value):
    """A text cell a spreadsheet will not run as a formula (as every export escapes it)."""
    return escape_text(value) if isinstance(value, str) else value


POLYTOPE_CSV = ("score", "ci_low", "ci_high", "n", "outputs", "words", "penalty", "critical",
                "major", "minor")  # fmt: skip


def leaderboard_csv(envelope: dict) -> str:
    """The leaderboard as CSV: one row per system, four columns per metric.

    When an output is annotated, PolyTope's columns follow (``polytope`` in percent, its CI,
    the annotated outputs ``polytope_n`` of ``polytope_outputs``, words, penalty and the
    critical, major and minor errors); empty for a system without annotations.

    Args:
        envelope: :func:`leaderboard_serve`'s result.

    Returns:
        CSV text with the header ``system,name,kind,version,n_documents,<m>,<m>_ci_low,...``.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["system", "name", "kind", "version", "n_documents"]
    for metric in envelope["metrics"]:
        header += [metric, f"{metric}_ci_low", f"{metric}_ci_high", f"{metric}_n"]
    polytope = (envelope.get("polytope") or {}).get("available")
    if polytope:
        header += ["polytope" if f == "score" else f"polytope_{f}" for f in POLYTOPE_CSV]
    header += ["vs_next_p_value", "vs_next_significant"]
    writer.writerow(header)
    for row in envelope["systems"]:
        line = [_cell_text(row[h]) for h in header[:5]]
        for metric in envelope["metrics"]:
            cell = row.get(metric)
            line += [cell["mean"], cell["ci_low"], cell["ci_high"], cell["n"]] if cell else [""] * 4
        if polytope:
            cell = row.get("polytope")
            line += [cell[f] if cell else "" for f in POLYTOPE_CSV]
        test = row.get("vs_next") or {}
        line += [test.get("p_value", ""), test.get("significant", "")]
        writer.writerow(line)
    return buffer.getvalue()


def leaderboard_json(envelope: dict) -> str:
    """The leaderboard as a JSON list with one object per system.

    Args:
        envelope: :func:`leaderboard_serve`'s result.

    Returns:
        JSON text.
    """
    return json.dumps(envelope["systems"], indent=2)


class LeaderboardExportApi(APIView):
    """Download the leaderboard as CSV or JSON (values are fractions in [0, 1]; PolyTope's
    score is in percent)."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(LeaderboardParams):
        file = serializers.ChoiceField(choices=["csv", "json"], default="csv")

    @extend_schema(
        parameters=[*PARAMETERS, OpenApiParameter("file", str, enum=["csv", "json"])],
        responses={(200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request, slug: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        serializer = self.InputSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        kind = serializer.validated_data["file"]
        envelope = leaderboard_serve(dataset=dataset, **_params(request))
        suffix = (envelope["category"] or "all").replace("+", "-")
        if kind == "csv":
            body, content_type = leaderboard_csv(envelope), "text/csv; charset=utf-8"
        else:
            body, content_type = leaderboard_json(envelope), "application/json"
        response = HttpResponse(body, content_type=content_type)
        name = f"{dataset.slug}-leaderboard-{suffix}-k{envelope['k']}.{kind}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _plot(name: str, dataset: Dataset, params: dict) -> str:
    """One plot; every plot of the board takes the board's colours, one per system."""
    from . import plots

    colours = leaderboard_colours(dataset=dataset)
    if name == "far-distribution":
        values, names = leaderboard_per_document(
            dataset=dataset, metric="far", category=params["category"], k=params["k"]
        )
        return plots.distribution_svg(
            values, metric="far", title="Per-document FAR", names=names, colours=colours
        )
    if name == "categories":
        envelopes = {
            category: leaderboard_serve(dataset=dataset, **{**params, "category": category})
            for category in CATEGORIES
        }
        return plots.category_bars_svg(
            envelopes, metric="far", title="FAR by facet category", colours=colours
        )
    envelope = leaderboard_serve(dataset=dataset, **params)
    if name == "polytope-subtypes":
        return plots.subtype_bars_svg(envelope, title="PolyTope errors by subtype")
    # ROUGE-1 recall as the dataset's settings store it (rouge1_r stemmed, or unstemmed).
    rouge1 = "rouge1_nostem_r" if "rouge1_nostem_r" in dataset_metrics(dataset=dataset)[1] else None
    x, title = {
        "far-rouge1r": (rouge1 or "rouge1_r", "FAR against ROUGE-1 recall"),
        "far-sar": ("sar", "FAR against SAR"),
    }[name]
    return plots.scatter_svg(envelope, x=x, y="far", title=title, colours=colours)


class LeaderboardPlotApi(APIView):
    """A leaderboard plot rendered as SVG on the server."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(parameters=PARAMETERS, responses={(200, "image/svg+xml"): OpenApiTypes.STR})
    def get(self, request, slug: str, name: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        if name not in PLOTS:
            return Response({"message": f"unknown plot {name!r}; plots: {', '.join(PLOTS)}",
                             "extra": {}}, status=404)  # fmt: skip
        params = _params(request)
        params["sort"] = None
        response = HttpResponse(_plot(name, dataset, params), content_type="image/svg+xml")
        response["Cache-Control"] = "private, max-age=0"
        return response


class SystemVersionListApi(APIView):
    """Every upload (version) of a system's outputs for a dataset, newest first."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str, system: str):
        dataset = get_object_or_404(Dataset, slug=slug)
        system = get_object_or_404(System, slug=system)
        return Response(output_version_list(dataset=dataset, system=system))


class SystemScoresApi(APIView):
    """Per-document scores of a system's output version (the latest unless ``version``), and
    ``has_fams``, whether the dataset has a FAM FAR can be computed against (without one the
    page shows no FAR filters)."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1, required=False)
        k = serializers.IntegerField(min_value=1, max_value=50, default=3)
        category = serializers.ChoiceField(
            choices=CATEGORY_CHOICES, required=False, allow_blank=True
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("version", int, required=False),
            OpenApiParameter("k", int, required=False),
            OpenApiParameter("category", str, enum=CATEGORY_CHOICES, required=False),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request, slug: str, system: str):
        serializer = self.InputSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        dataset = get_object_or_404(Dataset, slug=slug)
        system = get_object_or_404(System, slug=system)
        version = output_version_get(dataset=dataset, system=system, number=data.get("version"))
        table = output_score_table(
            version=version, k=data["k"], category=data.get("category") or None
        )
        return Response(
            {
                "dataset": dataset.slug,
                "system": system.slug,
                "name": system.name,
                "kind": system.kind,
                "version": version.number,
                "k": data["k"],
                "category": data.get("category") or None,
                "versions": output_version_list(dataset=dataset, system=system),
                "has_fams": scoring_fams_exist(dataset=dataset),
                **table,
            }
        )


class OutputDocumentApi(APIView):
    """One output on one document: extracted sentences against the support groups (Fig. 1)."""

    permission_classes = [IsResearcherOrAdmin]

    class InputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1, required=False)
        k = serializers.IntegerField(min_value=1, max_value=50, default=3)

    @extend_schema(
        parameters=[
            OpenApiParameter("version", int, required=False),
            OpenApiParameter("k", int, required=False),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request, slug: str, system: str, external_id: str):
        serializer = self.InputSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        dataset = get_object_or_404(Dataset, slug=slug)
        system = get_object_or_404(System, slug=system)
        version = output_version_get(
            dataset=dataset, system=system, number=serializer.validated_data.get("version")
        )
        return Response(
            output_document_view(
                version=version, external_id=external_id, k=serializer.validated_data["k"]
            )
        )
