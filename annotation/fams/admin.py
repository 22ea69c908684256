"""Admin pages for annotation sets and FAMs; read-only sets cannot be edited."""

from django.contrib import admin

from .models import AnnotationSet, AnnotationSetKind, Fam
from .signals import scored_fams_changed

# FAR is computed against these sets' FAMs: editing them in the admin queues a rescoring.
SCORED_KINDS = (AnnotationSetKind.GOLD, AnnotationSetKind.RELEASED)


def _rescore(request, annotation_set: AnnotationSet, *, was_scored: bool = False) -> None:
    if annotation_set.kind in SCORED_KINDS or was_scored:
        scored_fams_changed.send(
            sender=AnnotationSet, dataset=annotation_set.dataset, user=request.user
        )


@admin.register(AnnotationSet)
class AnnotationSetAdmin(admin.ModelAdmin):
    list_display = ("slug", "dataset", "name", "kind", "scheme", "read_only", "created_at")
    list_filter = ("dataset", "kind", "scheme", "read_only")

    def get_readonly_fields(self, request, obj=None):
        # A set's scheme is what its rows are (FAMs or spans of one taxonomy): fixed once made.
        return ("scheme",) if obj is not None else ()

    def save_model(self, request, obj, form, change):
        was_scored = change and form.initial.get("kind") in SCORED_KINDS
        super().save_model(request, obj, form, change)
        if "kind" in form.changed_data or not change:
            _rescore(request, obj, was_scored=was_scored)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        _rescore(request, obj)


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

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        _rescore(request, obj.annotation_set)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        _rescore(request, obj.annotation_set)
