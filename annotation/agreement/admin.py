"""Admin for span agreement runs (read-only: runs are started through the API)."""

from django.contrib import admin

from .models import SpanAgreementRun


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
