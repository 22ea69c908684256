"""Cross-dataset API: U matrices, stiffness, stableness, the ranking and the paired tests."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from scoring.metrics.crossdataset import MISSING_ERROR, MISSING_RULES
from scoring.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

from .models import CrossDatasetTestRun
from .plots import crossdataset_heatmaps
from .report import report_data
from .selectors import (
    DEFAULT_METRIC,
    MAX_RESAMPLES,
    MIN_RESAMPLES,
    crossdataset_inputs_digest,
    crossdataset_metrics,
    crossdataset_read,
    crossdataset_request_key,
    crossdataset_test_run_data,
    crossdataset_test_run_latest,
)
from .services import crossdataset_test_run_start


def _datasets(text: str) -> list[str] | None:
    return [s.strip() for s in text.split(",") if s.strip()] if text else None


class RequestSerializer(serializers.Serializer):
    """The evaluation's parameters (query string of the GET, body of the tests' POST)."""

    metric = serializers.CharField(
        default=DEFAULT_METRIC,
        help_text="A stored metric key: rouge1_f, rouge2_f, rougeL_f, far@3, sar@3, ...",
    )
    datasets = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Comma-separated dataset slugs in row/column order; default: every "
        "dataset that is both a training and a test set.",
    )
    missing = serializers.ChoiceField(
        choices=MISSING_RULES,
        default=MISSING_ERROR,
        help_text="error: every (train, test) cell is required; exclude: a missing "
        "off-diagonal cell is left out for every system, a system without an in-dataset "
        "cell is left out.",
    )
    resamples = serializers.IntegerField(
        default=DEFAULT_RESAMPLES,
        min_value=MIN_RESAMPLES,
        max_value=MAX_RESAMPLES,
        help_text="Sign patterns per paired test when it is not exact.",
    )


class WilcoxonSerializer(serializers.Serializer):
    measure = serializers.CharField(help_text="stiffness or stableness.")
    reading = serializers.CharField(
        help_text="cells: the matrices' cells are the pairs (Loupe's reading of the paper); "
        "documents: the (train, test, document) units are."
    )
    test = serializers.CharField()
    statistic = serializers.FloatField(
        help_text="SciPy's: the smaller of the positive and negative rank sums (two-sided)."
    )
    p_value = serializers.FloatField()
    n = serializers.IntegerField(help_text="Pairs given.")
    zeros = serializers.IntegerField(help_text="Zero differences dropped (zero_method wilcox).")
    method = serializers.CharField(help_text="How the p-value was computed.")
    alternative = serializers.CharField()
    mean_difference = serializers.FloatField(
        help_text="Mean of A - B over the pairs: measure(A) - measure(B) over the cells."
    )


class TestSerializer(serializers.Serializer):
    system_a = serializers.CharField()
    system_b = serializers.CharField()
    test = serializers.CharField(help_text="The permutation test (its fields up to error).")
    statistic = serializers.FloatField(
        allow_null=True, help_text="stiffness(A) - stiffness(B) on the shared units."
    )
    p_value = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(help_text="(train, test, document) units tested.")
    cells = serializers.IntegerField()
    exact = serializers.BooleanField()
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    alternative = serializers.CharField()
    dropped_a = serializers.IntegerField()
    dropped_b = serializers.IntegerField()
    error = serializers.CharField(allow_blank=True, help_text="Why the pair was not tested.")
    wilcoxon = WilcoxonSerializer(
        many=True,
        help_text="The paper's Wilcoxon signed-rank tests: stiffness and stableness, over the "
        "cells and over the documents.",
    )
    wilcoxon_error = serializers.CharField(
        allow_blank=True, help_text="Why the Wilcoxon tests were not run."
    )


class TestRunSerializer(serializers.Serializer):
    run = serializers.IntegerField(allow_null=True)
    state = serializers.CharField(help_text="none, queued, running, succeeded or failed.")
    pairs_done = serializers.IntegerField()
    pairs_total = serializers.IntegerField()
    recoveries = serializers.IntegerField(
        help_text="How many times the job kernel's watchdog re-sent the run's work."
    )
    recovery_note = serializers.CharField(allow_blank=True, help_text="The last recovery's note.")
    error = serializers.CharField(allow_blank=True)
    tests = TestSerializer(many=True, help_text="Once the run succeeded, one per pair.")


class CrossDatasetApi(APIView):
    """Cross-dataset evaluation (CDEvalSumm) of every system on the chosen datasets."""

    permission_classes = [IsResearcherOrAdmin]

    class FilterSerializer(RequestSerializer):
        plots = serializers.BooleanField(
            default=False, help_text="Add each system's U and normalised heat maps (SVG text)."
        )

    class OutputSerializer(serializers.Serializer):
        class SystemSerializer(serializers.Serializer):
            system = serializers.CharField(help_text="The systems' shared name.")
            u = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
            normalised = serializers.ListField(
                child=serializers.ListField(child=serializers.FloatField())
            )
            n_documents = serializers.ListField(
                child=serializers.ListField(child=serializers.IntegerField())
            )
            stiffness = serializers.FloatField(
                help_text="Mean of U over the N x N cells (sum / N²): ranked."
            )
            stableness = serializers.FloatField(
                help_text="Mean of U_ij / U_jj over the N x N cells (sum / N²): ranked."
            )
            in_dataset = serializers.FloatField()
            stiffness_printed = serializers.FloatField(
                help_text="Sum of U / N, CDEvalSumm's formula as printed (N times stiffness)."
            )
            stableness_printed = serializers.FloatField(
                help_text="Sum of U_ij / U_jj / N, the paper's formula as printed."
            )
            rank_stiffness = serializers.IntegerField()
            rank_stableness = serializers.IntegerField()
            rank_in_dataset = serializers.IntegerField()
            excluded = serializers.ListField(child=serializers.ListField())
            plots = serializers.DictField(child=serializers.CharField(), required=False)

        class LeftOutSerializer(serializers.Serializer):
            system = serializers.CharField()
            slug = serializers.CharField()
            trained_on = serializers.CharField()
            reason = serializers.CharField()

        class RankingSerializer(serializers.Serializer):
            stiffness = serializers.ListField(child=serializers.CharField())
            stableness = serializers.ListField(child=serializers.CharField())
            in_dataset = serializers.ListField(child=serializers.CharField())

        metric = serializers.CharField()
        metrics = serializers.ListField(child=serializers.CharField())
        datasets = serializers.ListField(child=serializers.CharField())
        missing = serializers.CharField()
        excluded = serializers.ListField(child=serializers.ListField())
        systems = SystemSerializer(many=True)
        left_out = LeftOutSerializer(many=True)
        ranking = RankingSerializer()
        tests = TestSerializer(
            many=True, help_text="The paired tests of tests_run once it succeeded (else [])."
        )
        tests_run = TestRunSerializer(
            help_text="The run of the paired tests for these parameters and the current "
            "scores (POST /api/crossdataset/tests/ starts it)."
        )
        normalisation = serializers.CharField(help_text="Which normalisation is ranked, why.")
        test = serializers.CharField()
        wilcoxon_test = serializers.CharField()
        alpha = serializers.FloatField(help_text="The paper's significance level.")
        test_description = serializers.CharField()

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer)
    def get(self, request):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        params = filters.validated_data
        metric, missing, resamples = params["metric"], params["missing"], params["resamples"]
        report = crossdataset_read(
            metric=metric,
            datasets=_datasets(params.get("datasets", "")),
            missing=missing,
            resamples=resamples,
            tests=False,
        )
        chosen = list(report.datasets)
        key = crossdataset_request_key(
            metric=metric, datasets=chosen, missing=missing, resamples=resamples, seed=DEFAULT_SEED
        )
        digest = crossdataset_inputs_digest(metric=metric, datasets=chosen)
        run = crossdataset_test_run_latest(key=key, inputs_digest=digest)
        body = report_data(report, metric=metric)
        body["metrics"] = list(crossdataset_metrics())
        body["tests_run"] = crossdataset_test_run_data(run)
        body["tests"] = body["tests_run"]["tests"]
        if params["plots"]:
            heatmaps = crossdataset_heatmaps(report, metric=params["metric"])
            for entry in body["systems"]:
                entry["plots"] = heatmaps[entry["system"]]
        return Response(self.OutputSerializer(body).data)


class CrossDatasetTestRunStartApi(APIView):
    """Start the paired tests of an evaluation on the workers (or answer the succeeded run for
    the same parameters and scores); 409 while such a run is queued or running."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        request=RequestSerializer,
        responses={
            202: OpenApiResponse(TestRunSerializer, description="Queued."),
            200: OpenApiResponse(TestRunSerializer, description="Already computed."),
            400: OpenApiResponse(description="Bad parameters or fewer than two systems."),
            409: OpenApiResponse(
                description="A run for these parameters and scores is queued or running "
                "(extra.run names it)."
            ),
        },
    )
    def post(self, request):
        serializer = RequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        params = serializer.validated_data
        run, _ = crossdataset_test_run_start(
            metric=params["metric"],
            datasets=_datasets(params.get("datasets", "")),
            missing=params["missing"],
            resamples=params["resamples"],
            user=request.user,
        )
        code = status.HTTP_200_OK if run.status == "succeeded" else status.HTTP_202_ACCEPTED
        return Response(TestRunSerializer(crossdataset_test_run_data(run)).data, status=code)


class CrossDatasetTestRunDetailApi(APIView):
    """One run of paired tests: its state and, once it succeeded, the tests."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses=TestRunSerializer)
    def get(self, request, run_id: int):
        run = get_object_or_404(CrossDatasetTestRun, pk=run_id)
        return Response(TestRunSerializer(crossdataset_test_run_data(run)).data)
