"""Admin pages for human judgments and released scores."""

from django.contrib import admin

from .models import HumanJudgment, ReleasedScore


@admin.register(HumanJudgment)
class HumanJudgmentAdmin(admin.ModelAdmin):
    list_display = ("name", "dataset", "kind", "system", "document", "value", "uploaded_by")
    list_filter = ("dataset", "name", "kind", "system")
    search_fields = ("name", "system__slug", "document__external_id")
    raw_id_fields = ("document",)
    list_select_related = ("dataset", "system", "document", "uploaded_by")
    readonly_fields = ("created_at",)


@admin.register(ReleasedScore)
class ReleasedScoreAdmin(admin.ModelAdmin):
    list_display = ("release", "dataset", "system", "document")
    list_filter = ("dataset", "release", "system")
    search_fields = ("release", "system__slug", "document__external_id")
    raw_id_fields = ("document",)
    list_select_related = ("dataset", "system", "document")
    readonly_fields = ("created_at",)
