"""Admin pages for releases: read-only (a release never changes; a new export is a new one)."""

from django.contrib import admin

from .models import Release


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("dataset", "version", "status", "archive", "size", "created_by", "created_at")
    list_filter = ("status", "archive")
    search_fields = ("dataset__slug", "notes")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
