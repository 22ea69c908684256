"""Admin pages for systems and their outputs."""

from django.contrib import admin

from .models import System, SystemOutput


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "kind", "trained_on", "owner", "created_at")
    list_filter = ("kind",)
    search_fields = ("slug", "name")


@admin.register(SystemOutput)
class SystemOutputAdmin(admin.ModelAdmin):
    list_display = ("system", "document", "extraction_method", "min_confidence")
    list_filter = ("system", "extraction_method", "document__dataset")
    search_fields = ("document__external_id", "system__slug")
    raw_id_fields = ("document",)
