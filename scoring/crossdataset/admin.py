"""Admin of the crossdataset app: the test runs and their pairs, read-only."""

from django.contrib import admin

from .models import CrossDatasetPairTest, CrossDatasetTestRun


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(CrossDatasetTestRun)
class CrossDatasetTestRunAdmin(_ReadOnly):
    list_display = ("id", "metric", "missing", "status", "pairs_done", "pairs_total", "created_at")
    list_filter = ("status", "metric")


@admin.register(CrossDatasetPairTest)
class CrossDatasetPairTestAdmin(_ReadOnly):
    list_display = ("id", "run", "system_a", "system_b", "done_at")
