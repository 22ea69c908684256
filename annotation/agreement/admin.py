"""Admin for agreement runs, span and FAM (read-only: runs are started through the API)."""

from django.contrib import admin

from .models import FamAgreementRun, SpanAgreementRun


@admin.register(SpanAgreementRun)
class SpanAgreementRunAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "scheme", "source", "campaign", "status", "created_at",
                    "finished_at")  # fmt: skip
    list_filter = ("status", "source", "scheme", "dataset")
    readonly_fields = [f.name for f in SpanAgreementRun._meta.fields] + ["annotation_sets"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(FamAgreementRun)
class FamAgreementRunAdmin(admin.ModelAdmin):
    list_display = ("id", "campaign", "status", "trigger", "created_at", "finished_at")
    list_filter = ("status", "trigger")
    # The result (megabytes for a large campaign) is read through the API, not here.
    fields = readonly_fields = [f.name for f in FamAgreementRun._meta.fields if f.name != "result"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
