"""Admin for adjudication: adjudicator grants (editable), gold links and document states (read)."""

from django.contrib import admin

from .models import CampaignAdjudicator, CampaignGold, DocumentAdjudication


@admin.register(CampaignAdjudicator)
class CampaignAdjudicatorAdmin(admin.ModelAdmin):
    list_display = ("campaign", "user", "granted_by", "created_at")
    list_filter = ("campaign",)
    search_fields = ("user__username", "campaign__slug")
    raw_id_fields = ("user", "granted_by")
    readonly_fields = ("granted_by", "created_at")

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.granted_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(CampaignGold)
class CampaignGoldAdmin(admin.ModelAdmin):
    """Made by the first gold save; gold FAMs are edited on the adjudication page."""

    list_display = ("campaign", "annotation_set", "created_at")
    readonly_fields = ("campaign", "annotation_set", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(DocumentAdjudication)
class DocumentAdjudicationAdmin(admin.ModelAdmin):
    """Read-only: done and reopen go through the API, which checks the gold and locks tasks."""

    list_display = ("campaign", "document", "status", "by", "at", "self_adjudicated")
    list_filter = ("status", "campaign")
    readonly_fields = [f.name for f in DocumentAdjudication._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
