"""Admin for AutoFAR fits and AutoFAR-L runs (read-only: the services write them)."""

from django.contrib import admin

from .models import AutoFarFit, AutoFarRun


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AutoFarFit)
class AutoFarFitAdmin(_ReadOnly):
    list_display = (
        "id",
        "dataset",
        "features_count",
        "rmse",
        "r2",
        "validation_rmse",
        "created_at",
    )
    list_filter = ("dataset",)

    @admin.display(description="features")
    def features_count(self, obj) -> int:
        return len(obj.features)


@admin.register(AutoFarRun)
class AutoFarRunAdmin(_ReadOnly):
    list_display = ("id", "dataset", "fit", "status", "chunks_done", "chunks_total", "finished_at")
    list_filter = ("status", "dataset")
