"""Admin for bias runs (read-only: imports, uploads, the API and the command create them)."""

from django.contrib import admin

from .models import BiasRun


@admin.register(BiasRun)
class BiasRunAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "trigger", "status", "chunks_done", "chunks_total",
                    "pairs_total", "reused_from", "created_at", "finished_at")  # fmt: skip
    list_filter = ("status", "trigger", "dataset")
    readonly_fields = [f.name for f in BiasRun._meta.fields] + ["versions"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
