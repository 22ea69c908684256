"""Admin pages for span annotations (read mostly; saves go through the services)."""

from django.contrib import admin

from .models import SpanAnnotation


@admin.register(SpanAnnotation)
class SpanAnnotationAdmin(admin.ModelAdmin):
    list_display = ("annotation_set", "output", "annotator", "no_errors", "version", "updated_at")
    list_filter = ("annotation_set",)
    raw_id_fields = ("output", "annotator")
    readonly_fields = ("errors", "no_errors", "version")
