"""Admin pages for campaigns (FAM and PolyTope), tasks, suggestion sets and the suggestion log."""

from django.contrib import admin

from .models import Campaign, SuggestionEvent, SuggestionSet, Task


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = (
        "slug",
        "name",
        "kind",
        "dataset",
        "annotators_per_document",
        "blind",
        "system_blind",
        "status",
        "suggestions_status",
    )
    list_filter = ("kind", "status", "blind", "dataset")
    filter_horizontal = ("documents",)
    # A PolyTope campaign's systems and items are fixed when it is created (its tasks point
    # at them); shown here, not edited.
    readonly_fields = ("kind", "systems_shown", "items")
    exclude = ("systems", "outputs")

    @admin.display(description="systems")
    def systems_shown(self, campaign) -> str:
        return ", ".join(sorted(s.slug for s in campaign.systems.all())) or "-"

    @admin.display(description="items (outputs)")
    def items(self, campaign) -> int:
        return campaign.outputs.count()

    def has_add_permission(self, request):
        # Campaigns are created through the service (POST /api/campaigns/create/), which also
        # creates the annotation set and queues the suggestions. Here: watch and change status.
        return False


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("campaign", "document", "output", "annotator", "status", "updated_at")
    list_filter = ("campaign", "status")
    raw_id_fields = ("document", "output")

    def has_add_permission(self, request):
        # Tasks come from assignment (POST /api/campaigns/<id>/assign/), which creates the FAM.
        return False


@admin.register(SuggestionSet)
class SuggestionSetAdmin(admin.ModelAdmin):
    list_display = ("campaign", "document", "scorer", "scorer_version", "computed_at")
    list_filter = ("campaign", "scorer")
    raw_id_fields = ("document",)


@admin.register(SuggestionEvent)
class SuggestionEventAdmin(admin.ModelAdmin):
    list_display = ("task", "facet", "sentence", "scorer", "action", "created_at")
    list_filter = ("action", "scorer")
