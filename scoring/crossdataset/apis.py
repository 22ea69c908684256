"""Cross-dataset API: U matrices, stiffness, stableness, the ranking and the paired tests."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsResearcherOrAdmin
from scoring.metrics.crossdataset import MISSING_ERROR, MISSING_RULES
from scoring.metrics.stats import DEFAULT_RESAMPLES

from .plots import crossdataset_heatmaps
from .report import report_data
from .selectors import (
    DEFAULT_METRIC,
    MAX_RESAMPLES,
    MIN_RESAMPLES,
    crossdataset_metrics,
    crossdataset_read,
)


class CrossDatasetApi(APIView):
    """Cross-dataset evaluation (CDEvalSumm) of every system on the chosen datasets."""

    permission_classes = [IsResearcherOrAdmin]

    class FilterSerializer(serializers.Serializer):
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
        plots = serializers.BooleanField(
            default=False, help_text="Add each system's U and normalised heat maps (SVG text)."
        )
        resamples = serializers.IntegerField(
            default=DEFAULT_RESAMPLES,
            min_value=MIN_RESAMPLES,
            max_value=MAX_RESAMPLES,
            help_text="Sign patterns per paired test when it is not exact.",
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
            stiffness = serializers.FloatField()
            stableness = serializers.FloatField()
            in_dataset = serializers.FloatField()
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

        class TestSerializer(serializers.Serializer):
            system_a = serializers.CharField()
            system_b = serializers.CharField()
            test = serializers.CharField()
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
            error = serializers.CharField(help_text="Why the pair could not be tested, or ''.")

        metric = serializers.CharField()
        metrics = serializers.ListField(child=serializers.CharField())
        datasets = serializers.ListField(child=serializers.CharField())
        missing = serializers.CharField()
        excluded = serializers.ListField(child=serializers.ListField())
        systems = SystemSerializer(many=True)
        left_out = LeftOutSerializer(many=True)
        ranking = RankingSerializer()
        tests = TestSerializer(many=True)
        test = serializers.CharField()
        test_description = serializers.CharField()

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer)
    def get(self, request):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        params = filters.validated_data
        text = params.get("datasets", "")
        datasets = [s.strip() for s in text.split(",") if s.strip()] if text else None
        report = crossdataset_read(
            metric=params["metric"],
            datasets=datasets,
            missing=params["missing"],
            resamples=params["resamples"],
        )
        body = report_data(report, metric=params["metric"])
        body["metrics"] = list(crossdataset_metrics())
        if params["plots"]:
            heatmaps = crossdataset_heatmaps(report, metric=params["metric"])
            for entry in body["systems"]:
                entry["plots"] = heatmaps[entry["system"]]
        return Response(self.OutputSerializer(body).data)
