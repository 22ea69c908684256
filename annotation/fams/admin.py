"""Admin pages for annotation sets and FAMs; read-only sets cannot be edited."""

from django.contrib import admin

from .models import AnnotationSet, Fam


@admin.register(AnnotationSet)
class AnnotationSetAdmin(admin.ModelAdmin):
    list_display = ("slug", "dataset", "name", "kind", "read_only", "created_at")
    list_filter = ("dataset", "kind", "read_only")


@admin.register(Fam)
class FamAdmin(admin.ModelAdmin):
    list_display = ("annotation_set", "document", "reference", "annotator", "version", "updated_at")
    list_filter = ("annotation_set",)
    raw_id_fields = ("document", "reference")

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.annotation_set.read_only:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.annotation_set.read_only:
            return False
        return super().has_delete_permission(request, obj)
