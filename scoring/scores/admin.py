"""Admin for scoring jobs (read-only: jobs are created by uploads, FAM changes and the API)."""

from django.contrib import admin

from .models import ScoringJob


@admin.register(ScoringJob)
class ScoringJobAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "trigger", "status", "chunks_done", "chunks_total",
                    "scores_written", "created_at", "finished_at")  # fmt: skip
    list_filter = ("status", "trigger", "dataset")
    readonly_fields = [f.name for f in ScoringJob._meta.fields] + ["versions"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
