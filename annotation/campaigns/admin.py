"""Admin pages for campaigns, tasks, suggestion sets and the suggestion log."""

from django.contrib import admin

from .models import Campaign, SuggestionEvent, SuggestionSet, Task


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = (
        "slug",
        "name",
        "dataset",
        "annotators_per_document",
        "blind",
        "status",
        "suggestions_status",
    )
    list_filter = ("status", "blind", "dataset")
    filter_horizontal = ("documents",)

    def has_add_permission(self, request):
        # Campaigns are created through the service (POST /api/campaigns/create/), which also
        # creates the annotation set and queues the suggestions. Here: watch and change status.
        return False


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("campaign", "document", "annotator", "status", "updated_at")
    list_filter = ("campaign", "status")
    raw_id_fields = ("document",)

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
